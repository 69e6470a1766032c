/** A connection's read-only view for the management API (RabbitMQ's connection record). */
import type { Duplex } from "node:stream";
import type { ConnectionInfo } from "../../broker/index.js";
import type { FieldTable } from "../../broker/values/field-value.js";
import { tlsSessionInfo } from "../../tls/tls-session.js";
import type { ChannelTable } from "./channel-table.js";
import type { ConnectionState } from "./connection-close.js";
import type { FrameOutput } from "./frame-output.js";
import type { Tuning } from "./handshake.js";

/** The connection as its record sees it. */
export interface ConnectionFacts extends Pick<ConnectionInfo, "name" | "host" | "port" | "peerHost" | "peerPort" | "user" | "vhost" | "authMechanism"> {
  readonly tls: boolean;
  readonly socket: Duplex;
  readonly state: ConnectionState;
  readonly flow: { readonly paused: boolean };
  readonly connectedAt: number;
  readonly tuning: Tuning;
  readonly clientProperties: FieldTable;
  readonly stats: { readonly recvOct: number; readonly recvCnt: number };
  readonly output: FrameOutput;
  readonly channels: ChannelTable;
}

export function connectionInfo(c: ConnectionFacts): ConnectionInfo {
  return {
    name: c.name,
    host: c.host,
    port: c.port,
    peerHost: c.peerHost,
    peerPort: c.peerPort,
    user: c.user,
    vhost: c.vhost,
    protocol: "AMQP 0-9-1",
    authMechanism: c.authMechanism,
    ssl: c.tls,
    tlsSession: c.tls ? tlsSessionInfo(c.socket) : null,
    // RabbitMQ shows a running connection held by flow control as "flow".
    state: c.flow.paused && c.state === "running" ? "flow" : c.state,
    connectedAt: c.connectedAt,
    channelMax: c.tuning.channelMax,
    frameMax: c.tuning.frameMax,
    heartbeat: c.tuning.heartbeat,
    clientProperties: c.clientProperties,
    recvOct: c.stats.recvOct,
    sendOct: c.output.sendOct,
    recvCnt: c.stats.recvCnt,
    sendCnt: c.output.sendCnt,
    channels: c.channels.infos(),
  };
}
