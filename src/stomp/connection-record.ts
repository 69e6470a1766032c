/**
 * A STOMP connection as the management API, the UI, coneyctl and Prometheus see it: the
 * protocol-neutral record of the broker's connection registry with RabbitMQ's protocol name,
 * "STOMP 1.2" (the negotiated version; "Web STOMP 1.2" over WebSocket).
 */
import { peerAddresses, type PeerInfo } from "../auth/peer-address.js";
import type { ConnectionInfo } from "../broker/index.js";
import type { StompVersion } from "./stomp-frame.js";

export interface StompPeer extends PeerInfo {
  /** "STOMP" over TCP and TLS, "Web STOMP" over WebSocket. */
  readonly protocolName: "STOMP" | "Web STOMP";
  /** The verified client certificate's name (STOMP over TLS); null without one. */
  readonly certName: string | null;
}

export interface StompFacts {
  readonly user: string;
  readonly vhost: string;
  readonly version: StompVersion;
  readonly state: ConnectionInfo["state"];
  readonly connectedAt: number;
  /** The heart-beat the server sends, in seconds. */
  readonly heartbeat: number;
  readonly sessionId: string;
}

export function stompConnectionRecord(name: string, peer: StompPeer, f: StompFacts, received: { readonly recvOct: number; readonly recvCnt: number }, sent: { readonly sendOct: number; readonly sendCnt: number }): ConnectionInfo {
  return {
    name,
    ...peerAddresses(peer),
    user: f.user,
    vhost: f.vhost,
    protocol: `${peer.protocolName} ${f.version}`,
    authMechanism: "STOMP",
    ssl: peer.tls,
    tlsSession: null,
    state: f.state,
    connectedAt: f.connectedAt,
    channelMax: 1,
    frameMax: 0,
    heartbeat: f.heartbeat,
    clientProperties: { session: f.sessionId },
    recvOct: received.recvOct,
    sendOct: sent.sendOct,
    recvCnt: received.recvCnt,
    sendCnt: sent.sendCnt,
    channels: [],
  };
}
