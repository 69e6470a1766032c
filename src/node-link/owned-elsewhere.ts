/**
 * What another node's connections own, reached from this node over links (issue 42;
 * docs/CLUSTERING.md, "Built: exclusive queues and direct reply-to across workers", and the spread
 * cluster's subsection). Shared by `coney --workers N` (src/workers) and a spread cluster
 * (src/cluster), which each know their nodes and links their own way:
 * - replies to a direct reply-to requester of another node: the key's node tag names the node,
 *   and the reply goes over this node's link to it (DIRECT_REPLY, frame 40); with no link up the
 *   reply has no route (a mandatory one is returned NO_ROUTE);
 * - another node's exclusive queues, held here as RemoteQueues (owner-elsewhere.ts): when the
 *   link to their node is lost — it died, or stopped — they are removed here, as RabbitMQ removes
 *   a lost node's exclusive queues.
 */
import { ownerNodeElsewhere, type Broker, type Message, type QueueLeaderPort, type ReplyForwarder } from "../broker/index.js";
import { LeaderLink } from "./leader-link.js";

export class RepliesOverLinks implements ReplyForwarder {
  /** `portOfTag`: the port to the node a reply key's tag names (replyNodeTag), if that node is known. */
  constructor(private readonly portOfTag: (nodeTag: string) => QueueLeaderPort | undefined) {}

  forward(nodeTag: string, message: Message): boolean {
    const port = this.portOfTag(nodeTag);
    if (!(port instanceof LeaderLink) || !port.up) return false;
    port.forwardReply(message);
    return true;
  }
}

/** The link to `node` is lost: the exclusive queues its connections owned go here (a scan: on a lost link only). Returns how many went. */
export function dropExclusiveQueuesOf(broker: Broker, node: string): number {
  let dropped = 0;
  for (const v of broker.vhosts.values()) {
    for (const q of [...v.queues.values()]) {
      if (ownerNodeElsewhere(q) !== node) continue;
      broker.ownerClosed(q.exclusiveOwner!);
      dropped++;
    }
  }
  return dropped;
}
