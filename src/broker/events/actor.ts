/**
 * Who performs a broker operation and from where: the user (RabbitMQ's
 * `user_who_performed_action`), how that user logged in, the front that carried the request, and
 * the peer's address. Transports build one per request or connection; the domain only passes it
 * on to the events it announces (events/domain-events.ts).
 */

/** How the user proved who they are: a password (HTTP Basic, AMQP PLAIN, MQTT), a JWT, or the broker itself. */
export type AuthMethod = "basic" | "oauth" | "internal";

/** What carried the request: the management API (coneyctl told apart by its user agent), a protocol, or the broker. */
export type ActorSource = "http" | "cli" | "amqp" | "mqtt" | "stream" | "stomp" | "internal";

export interface Actor {
  readonly user: string;
  readonly authMethod: AuthMethod;
  readonly source: ActorSource;
  /** "host:port" of the client; "" for the broker's own work. */
  readonly peer: string;
}

/** The broker acting on its own (boot, definitions restore, expiry): RabbitMQ's internal user name. */
export const SYSTEM_ACTOR: Actor = { user: "rmq-internal", authMethod: "internal", source: "internal", peer: "" };
