/**
 * RabbitMQ's events for connections, channels, consumers and logins (rabbit_reader,
 * rabbit_channel, rabbit_queue_consumers): built only while a listener wants them
 * (DomainEvents.detailWanted), since they come from code near the connection's hot path.
 */
import type { ChannelInfo, ConnectionInfo } from "../connection-registry.js";
import type { ConsumerDescription } from "../queue/queue-consumer.js";
import type { Actor } from "./actor.js";
import { announce, type Announcer } from "./announce.js";

const actorFor = (user: string, source: Actor["source"], peer: string): Actor => ({ user, authMethod: "basic", source, peer });

const sourceOf = (protocol: string): Actor["source"] => (protocol.startsWith("MQTT") || protocol.startsWith("mqtt") ? "mqtt" : "amqp");

export function announceConnection(b: Announcer, c: ConnectionInfo, created: boolean, node: string): void {
  const actor = actorFor(c.user, sourceOf(c.protocol), `${c.peerHost}:${c.peerPort}`);
  if (!created) {
    announce(b, actor, "connection.closed", { name: c.name, node, vhost: c.vhost, user: c.user, client_properties: c.clientProperties });
    return;
  }
  announce(b, actor, "connection.created", {
    type: "network",
    name: c.name,
    host: c.host,
    port: c.port,
    peer_host: c.peerHost,
    peer_port: c.peerPort,
    ssl: c.ssl,
    auth_mechanism: c.authMechanism,
    protocol: c.protocol,
    user: c.user,
    vhost: c.vhost,
    timeout: c.heartbeat,
    frame_max: c.frameMax,
    channel_max: c.channelMax,
    client_properties: c.clientProperties,
    connected_at: c.connectedAt,
    node,
  });
}

export function announceChannel(b: Announcer, ch: ChannelInfo, created: boolean): void {
  const actor = actorFor(ch.user, "amqp", `${ch.peerHost}:${ch.peerPort}`);
  const props = { name: ch.name, connection: ch.connectionName, number: ch.number, user: ch.user, vhost: ch.vhost };
  announce(b, actor, created ? "channel.created" : "channel.closed", created ? props : { ...props, consumer_count: ch.consumerCount });
}

export interface ConsumerEventSubject {
  readonly tag: string;
  readonly noAck: boolean;
  readonly exclusive: boolean;
  describe?(): ConsumerDescription;
}

export function announceConsumer(b: Announcer, queue: { readonly name: string; readonly vhost: string }, c: ConsumerEventSubject, created: boolean): void {
  const d = c.describe?.();
  const actor = actorFor(d?.user ?? "", "amqp", "");
  const props: Record<string, unknown> = { consumer_tag: c.tag, queue: queue.name, vhost: queue.vhost, channel: d?.channel ?? "" };
  if (created) Object.assign(props, { exclusive: c.exclusive, ack_required: !c.noAck, prefetch_count: d?.prefetchCount ?? 0, arguments: d?.arguments ?? {} });
  announce(b, actor, created ? "consumer.created" : "consumer.deleted", props);
}

/** user.authentication.success / failure: the user name tried and the protocol (RabbitMQ's connection_type and protocol). */
export function announceLogin(b: Announcer, name: string, protocol: string, ok: boolean): void {
  const source = protocol === "http" ? "http" : sourceOf(protocol);
  announce(b, actorFor(name, source, ""), ok ? "user.authentication.success" : "user.authentication.failure", { name, connection_type: "network", protocol });
}
