/**
 * What the API's health checks, /api/overview's listeners and the `coney_listener_up` gauge know
 * of a node's listeners: each one's protocol (RabbitMQ's names: amqp, amqp/ssl, http, https,
 * http/prometheus, https/prometheus, mqtt, stream, …), its port, and whether it is bound now.
 */
export interface ListenerStatus {
  readonly protocol: string;
  /** The bound port when up; the configured one (what it keeps trying) when down. */
  readonly port: number;
  readonly up: boolean;
  /** Why it is down (the last bind error), null when up. */
  readonly reason: string | null;
}

/** The node's listeners as they are at the time of the call. */
export type ListenerStatuses = () => readonly ListenerStatus[];
