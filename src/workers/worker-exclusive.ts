/**
 * What another worker's connections own, reached from this worker (issue 42; docs/CLUSTERING.md,
 * "Built: exclusive queues and direct reply-to across workers"):
 * - replies to a direct reply-to requester of another worker: the key's node tag names the
 *   worker, and the reply goes over this worker's link to it (DIRECT_REPLY); with that link down
 *   the reply has no route (a mandatory one is returned NO_ROUTE);
 * - another worker's exclusive queues, held here as RemoteQueues (owner-elsewhere.ts): when the
 *   link to their worker is lost — it died, or stopped — they are removed here, as RabbitMQ
 *   removes a lost node's exclusive queues; a restarted worker has none of them.
 */
import { LeaderLink } from "../node-link/node-link.js";
import { ownerNodeElsewhere, replyNodeTag, type Broker, type Message, type QueueLeaderPort, type ReplyForwarder } from "../broker/index.js";

export class RepliesToWorkers implements ReplyForwarder {
  private readonly byTag = new Map<string, number>();

  constructor(
    nodeNames: readonly string[],
    private readonly portAt: (worker: number) => QueueLeaderPort,
  ) {
    nodeNames.forEach((name, i) => this.byTag.set(replyNodeTag(name), i));
  }

  forward(nodeTag: string, message: Message): boolean {
    const w = this.byTag.get(nodeTag);
    if (w === undefined) return false;
    const port = this.portAt(w);
    if (!(port instanceof LeaderLink) || !port.up) return false;
    port.forwardReply(message);
    return true;
  }
}

/** The link to `node` is lost: the exclusive queues its connections owned go here (a scan: on a lost link only). */
export function dropExclusiveQueuesOf(broker: Broker, node: string): void {
  for (const v of broker.vhosts.values()) {
    for (const q of [...v.queues.values()]) if (ownerNodeElsewhere(q) === node) broker.ownerClosed(q.exclusiveOwner!);
  }
}
