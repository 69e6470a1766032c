/**
 * What the management API needs of federation (src/federation provides it; the two faces do not
 * import each other): the links as RabbitMQ's API shows them, and restarting one.
 */
export interface FederationLinks {
  /** Every link as RabbitMQ's API shows it (node, type, exchange/queue, upstream, id, status, …). */
  records(): Record<string, unknown>[];
  /** Restarts the link `id` of `vhost`; false when there is none. */
  restart(vhost: string, id: string): boolean;
}
