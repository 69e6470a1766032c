/**
 * An MQTT connection as the management API, the UI and coneyctl see it: the protocol-neutral
 * record of the broker's connection registry, with RabbitMQ's protocol names ("MQTT 3.1.1",
 * "MQTT 5-0", "Web MQTT …") and the client id in client_properties.client_id.
 */
import { peerAddresses, type PeerInfo } from "../auth/peer-address.js";
import type { ConnectionInfo } from "../broker/index.js";

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
    channels: [],
  };
}
