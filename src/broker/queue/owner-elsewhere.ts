/**
 * The owner of an exclusive queue declared by a connection of another node (issue 42;
 * docs/CLUSTERING.md, "Exclusive queues and direct reply-to"). RabbitMQ keeps an exclusive queue
 * on its connection's node and every other node routes to it; here the other nodes hold it as a
 * RemoteQueue whose `exclusiveOwner` is one of these, so every client of this node is refused
 * it (RESOURCE_LOCKED, the same check as for another local connection) while publishing to it
 * works. It names the node, so the queue goes when that node is lost.
 */
export class OwnerElsewhere {
  constructor(readonly node: string) {}
}

/** The node owning `q`'s exclusive queue when a connection of another node declared it; null otherwise. */
export function ownerNodeElsewhere(q: { readonly exclusiveOwner: object | null }): string | null {
  return q.exclusiveOwner instanceof OwnerElsewhere ? q.exclusiveOwner.node : null;
}
