/**
 * What another worker's connections own, reached from this worker (issue 42; docs/CLUSTERING.md,
 * "Built: exclusive queues and direct reply-to across workers"): the workers' side of
 * src/node-link/owned-elsewhere.ts — a reply key's node tag names a worker by index, and that
 * worker's port carries the reply; a lost link drops that worker's exclusive queues here.
 */
import { replyNodeTag, type QueueLeaderPort } from "../broker/index.js";
import { RepliesOverLinks } from "../node-link/owned-elsewhere.js";

export { dropExclusiveQueuesOf } from "../node-link/owned-elsewhere.js";

export class RepliesToWorkers extends RepliesOverLinks {
  constructor(nodeNames: readonly string[], portAt: (worker: number) => QueueLeaderPort) {
    const byTag = new Map<string, number>();
    nodeNames.forEach((name, i) => byTag.set(replyNodeTag(name), i));
    super((tag) => {
      const w = byTag.get(tag);
      return w === undefined ? undefined : portAt(w);
    });
  }
}
