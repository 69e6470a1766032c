/**
 * A stream connection as the management API, the UI and coneyctl see it: the broker registry's
 * protocol-neutral record with RabbitMQ's protocol name "stream", the client's peer properties as
 * client_properties (connection_name becomes user_provided_name there), and its publishers and
 * subscriptions for /api/stream/*.
 */
import type { TLSSocket } from "node:tls";
import { peerAddresses, type PeerInfo } from "../auth/peer-address.js";
import type { ConnectionInfo, StreamConsumerInfo, StreamPublisherInfo } from "../broker/index.js";
import type { PublisherState, SubscriptionState } from "./stream-context.js";

/** Where the stream comes from (the peer facts every transport has), and what a stream client is told. */
export interface StreamPeer extends PeerInfo {
  /** The host told to clients when stream.advertised_host is not set. */
  readonly advertisedHost: string;
  /** The name its verified client certificate logs in as with SASL EXTERNAL (ssl_cert_login_from); null without one. */
  readonly certName: string | null;
}

export interface ConnectionFacts {
  readonly user: string;
  readonly vhost: string;
  readonly state: string;
  readonly connectedAt: number;
  readonly frameMax: number;
  readonly heartbeat: number;
  readonly clientProperties: ReadonlyMap<string, string>;
  readonly recvOct: number;
  readonly recvCnt: number;
  readonly sendOct: number;
  readonly sendCnt: number;
}

export function connectionInfo(name: string, peer: StreamPeer, socket: TLSSocket, f: ConnectionFacts): ConnectionInfo {
  const cipher = peer.tls ? socket.getCipher?.() : undefined;
  return {
    name,
    ...peerAddresses(peer),
    user: f.user,
    vhost: f.vhost,
    protocol: "stream",
    authMechanism: "PLAIN",
    ssl: peer.tls,
    tlsSession: cipher ? { protocol: socket.getProtocol?.() ?? "", keyExchange: "", cipher: cipher.name, hash: "", peerCertIssuer: "", peerCertSubject: "", peerCertValidity: "" } : null,
    state: f.state,
    connectedAt: f.connectedAt,
    channelMax: 0,
    frameMax: f.frameMax,
    heartbeat: f.heartbeat,
    clientProperties: Object.fromEntries(f.clientProperties),
    recvOct: f.recvOct,
    sendOct: f.sendOct,
    recvCnt: f.recvCnt,
    sendCnt: f.sendCnt,
    channels: [],
  };
}

export function publisherInfo(p: PublisherState): StreamPublisherInfo {
  return { id: p.id, reference: p.reference, stream: p.stream, published: p.published, confirmed: p.confirmed, errored: p.errored };
}

export function consumerInfo(s: SubscriptionState): StreamConsumerInfo {
  const committed = s.queue?.stream.committedOffset ?? s.remoteCommitted ?? s.offset;
  return {
    id: s.id,
    stream: s.stream,
    offset: s.offset,
    offsetLag: Math.max(0, committed - s.offset),
    credits: s.credit,
    consumed: s.consumed,
    active: s.active,
    properties: Object.fromEntries(s.properties),
  };
}
