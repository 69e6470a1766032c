/**
 * An MQTT connection as the management API, the UI and coneyctl see it: the protocol-neutral
 * record of the broker's connection registry, with RabbitMQ's protocol names ("MQTT 3.1.1",
 * "MQTT 5-0", "Web MQTT …") and the client id in client_properties.client_id.
 *
 * Its channel, as RabbitMQ 3.10 lists it: the MQTT plugin consumes a session's subscription queues
 * on channel 1 of the connection, so /api/channels, /api/consumers, a queue's consumer_details and
 * the connection's channels all name the subscriber, and their counts agree with the queues'
 * consumer counts (/api/overview). Built only when the management API asks; nothing here is on
 * the delivery path. Its message_stats are the session's own counters (MqttSession.channelStats,
 * counted where the broker's are): publish, confirm and drop_unroutable of the client's PUBLISHes,
 * deliver, deliver_no_ack, redeliver and ack of what it is sent, as RabbitMQ 3.10's MQTT channels
 * count them (there spread over a consuming and a publishing channel; here on the one).
 */
import { peerAddresses, type PeerInfo } from "../auth/peer-address.js";
import { emptyChannelCounters, type ChannelCounters, type ChannelInfo, type ConnectionInfo, type ConsumerInfo, type VHost } from "../broker/index.js";
import { MqttConsumer } from "./mqtt-consumer.js";

/** Where the stream comes from (the peer facts every transport has), and what MQTT adds to them. */
export interface MqttPeer extends PeerInfo {
  /** "MQTT" over TCP, "Web MQTT" over WebSocket (RabbitMQ's protocol names). */
  readonly protocolName: "MQTT" | "Web MQTT";
  /** The verified client certificate's name (MQTTS, ssl_cert_login_from); null without one. */
  readonly certName: string | null;
}

const VERSION_NAMES: Record<number, string> = { 3: "3.1.0", 4: "3.1.1", 5: "5-0" };

export interface SessionFacts {
  readonly user: string;
  readonly vhost: string;
  readonly clientId: string;
  readonly state: ConnectionInfo["state"];
  readonly connectedAt: number;
  readonly keepAlive: number;
}

export function connectionRecord(
  name: string,
  peer: MqttPeer,
  protocolVersion: number,
  s: SessionFacts,
  received: { readonly recvOct: number; readonly recvCnt: number },
  sent: { readonly sendOct: number; readonly sendCnt: number },
  channels: readonly ChannelInfo[],
): ConnectionInfo {
  return {
    name,
    ...peerAddresses(peer),
    user: s.user,
    vhost: s.vhost,
    protocol: `${peer.protocolName} ${VERSION_NAMES[protocolVersion] ?? "3.1.1"}`,
    authMechanism: "none",
    ssl: peer.tls,
    tlsSession: null,
    state: s.state,
    connectedAt: s.connectedAt,
    channelMax: 0,
    frameMax: 0,
    heartbeat: s.keepAlive,
    clientProperties: { client_id: s.clientId },
    recvOct: received.recvOct,
    sendOct: sent.sendOct,
    recvCnt: received.recvCnt,
    sendCnt: sent.sendCnt,
    channels,
  };
}

/** The connection facts the channel repeats (RabbitMQ's channel_details). */
export interface ChannelOwner {
  readonly name: string;
  readonly peerHost: string;
  readonly peerPort: number;
  readonly user: string;
  readonly connectedAt: number;
}

/** What the session tells about its consumers. */
export interface SessionConsumers {
  /** The queues the session consumes from: its session queues (QoS 0, 1, 2) and its shared subscriptions' queues. */
  consumedQueueNames(): Iterable<string>;
  /** Prefetch of the QoS 1 consumer: mqtt.prefetch, capped by the client's Receive Maximum. */
  readonly prefetch: number;
  /** The connection's message counters (the channel's message_stats). */
  readonly channelStats: Readonly<ChannelCounters>;
}

const NO_COUNTS: Readonly<ChannelCounters> = Object.freeze(emptyChannelCounters());

/** Channel 1 of an open MQTT connection, with the consumers on its session queues. */
export function sessionChannel(conn: ChannelOwner, vhost: VHost, session: SessionConsumers | null, owner: object): ChannelInfo {
  const consumers: ConsumerInfo[] = [];
  let unacked = 0;
  if (session !== null) {
    for (const name of session.consumedQueueNames()) {
      const q = vhost.queues.get(name);
      if (!q) continue;
      for (const c of q.listConsumers()) {
        // This connection's consumer only (a shared subscription's queue has one per member).
        if (!(c instanceof MqttConsumer) || c.owner !== owner) continue;
        unacked += c.unackedCount;
        consumers.push({
          tag: c.tag,
          queue: q.name,
          vhost: q.vhost,
          ackRequired: !c.noAck,
          exclusive: c.exclusive,
          prefetchCount: session.prefetch,
          priority: c.priority,
          arguments: {},
          activity: q.consumerActivity(c),
        });
      }
    }
  }
  return {
    number: 1,
    name: `${conn.name} (1)`,
    connectionName: conn.name,
    peerHost: conn.peerHost,
    peerPort: conn.peerPort,
    user: conn.user,
    vhost: vhost.name,
    state: "running",
    consumerCount: consumers.length,
    prefetchCount: session?.prefetch ?? 0,
    globalPrefetchCount: 0,
    messagesUnacknowledged: unacked,
    messagesUnconfirmed: 0,
    messagesUncommitted: 0,
    acksUncommitted: 0,
    confirm: false,
    transactional: false,
    createdAt: conn.connectedAt,
    stats: session?.channelStats ?? NO_COUNTS,
    consumers,
  };
}
