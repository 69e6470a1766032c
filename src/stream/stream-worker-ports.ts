/**
 * The stream ports of `coney --workers N` (docs/CLUSTERING.md, "Streams across the workers"). The
 * stream port is shared (any worker answers a client there), and each worker also listens on a
 * port of its own, which it advertises in Open and names in Metadata as the leader of the streams
 * it leads — as each RabbitMQ node has its own stream port and Metadata names the leader's. A
 * client (rabbitmq-stream-js-client, the Java client) then publishes and subscribes on the leader's
 * own port; one behind a load balancer (an address resolver) reconnects through the shared port
 * until Open names the worker it wants.
 */
export interface StreamWorkerPorts {
  /** This worker's own stream port (it listens there alone, not through node:cluster). */
  readonly own: number;
  /** The own stream port of the worker named `node` (a RemoteStreamQueue's leader); null when it has none. */
  portOf(node: string): number | null;
}
