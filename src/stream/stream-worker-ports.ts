/**
 * Where the streams of the other nodes of one broker are served, for Metadata (docs/CLUSTERING.md,
 * "Streams across the workers" and "Streams in a spread cluster").
 *
 * `coney --workers N`: the stream port is shared (any worker answers a client there), and each
 * worker also listens on a port of its own, which it advertises in Open and names in Metadata as
 * the leader of the streams it leads — as each RabbitMQ node has its own stream port and Metadata
 * names the leader's. A client (rabbitmq-stream-js-client, the Java client) then publishes and
 * subscribes on the leader's own port; one behind a load balancer (an address resolver)
 * reconnects through the shared port until Open names the worker it wants.
 *
 * A spread cluster: each node's stream port is already its own (`own` null); Metadata names the
 * home node's host and stream port, as each member registered them in etcd.
 */
export interface StreamWorkerPorts {
  /** This worker's own stream port (it listens there alone, not through node:cluster); null: the node's stream port is its own (a spread node). */
  readonly own: number | null;
  /** The stream port of the node named `node` (a RemoteStreamQueue's leader); null when it has none. */
  portOf(node: string): number | null;
  /** The host clients reach node `node`'s stream port at; absent or null: this node's advertised host (workers share one machine). */
  hostOf?(node: string): string | null;
}
