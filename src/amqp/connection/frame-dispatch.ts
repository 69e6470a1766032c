/**
 * Where each incoming frame goes (AMQP 0-9-1 §2.3.5, §4.2.3): heartbeats are only noted,
 * channel 0 methods drive the handshake and the connection's own methods (close, close-ok,
 * update-secret), other methods go to their channel (channel.open creates it), content header
 * and body frames to the channel whose publish awaits them. While closing only the close
 * handshake is read. A basic.publish during a resource alarm blocks the connection first.
 *
 * Per frame this is one call and a Map lookup, as when it was a method of the connection. Method
 * and header frames are decoded where they lie in the read buffer; only a body frame becomes a
 * slice (the body is kept).
 */
import { BrokerError } from "../../errors/broker-error.js";
import type { ResourceAlarms } from "../../broker/index.js";
import { decodeIncomingMethod, FRAME_BODY, FRAME_HEADER, FRAME_HEARTBEAT, FRAME_METHOD, MethodId, type Method } from "../codec/generated.js";
import type { Channel } from "../channel/channel.js";
import type { FrameReader } from "../codec/frame-reader.js";
import type { ChannelHost } from "../channel/channel-host.js";
import type { AlarmBlock } from "./alarm-block.js";
import type { ChannelTable } from "./channel-table.js";
import type { ConnectionClose, ConnectionState } from "./connection-close.js";
import type { Handshake } from "./handshake.js";
import type { LoginSession } from "./login-session.js";

/** The connection as frame dispatch sees it. */
export interface DispatchTarget extends ChannelHost {
  readonly state: ConnectionState;
  readonly settings: { readonly maxMessageSize: number; readonly alarms?: ResourceAlarms | null };
  readonly tuning: { readonly channelMax: number };
  readonly handshake: Handshake;
  readonly channels: ChannelTable;
  readonly alarmBlock: AlarmBlock;
  readonly login: LoginSession;
  readonly closing: ConnectionClose;
}

/** Handles the reader's current frame; throws BrokerError for a connection-level protocol error. */
export function dispatchFrame(c: DispatchTarget, f: FrameReader): void {
  const type = f.type;
  const channel = f.channel;
  if (type === FRAME_HEARTBEAT) {
    if (channel !== 0) throw new BrokerError("frameError", `heartbeat frame on channel ${channel}`);
    return;
  }
  if (c.state === "closing") return c.closing.onFrameWhileClosing(type, channel, f.payload());
  if (type === FRAME_METHOD) {
    // basic.publish and basic.ack come back as reused objects: handled here, synchronously, kept by nobody.
    const m = decodeIncomingMethod(f.payloadBuf, f.payloadStart, f.payloadEnd);
    const alarms = c.settings.alarms;
    if (m.id === MethodId.BasicPublish && alarms?.reason != null && !c.alarmBlock.active) c.alarmBlock.block(alarms);
    if (channel === 0) return connectionMethod(c, m);
    if (!c.handshake.done) throw new BrokerError("channelError", `${m.name} before connection.open`);
    return channelFor(c, channel, m).handleMethod(m);
  }
  if (type === FRAME_HEADER || type === FRAME_BODY) {
    const ch = c.channels.get(channel);
    if (!ch || channel === 0) throw new BrokerError("unexpectedFrame", `content frame on channel ${channel} without a channel`);
    if (type === FRAME_HEADER) ch.handleHeader(f.payloadBuf, f.payloadStart, f.payloadEnd);
    else if (f.payloadPieces !== null) ch.handleBodyPieces(f.payloadPieces);
    else ch.handleBody(f.payloadBuf, f.payloadStart, f.payloadEnd);
    return;
  }
  throw new BrokerError("frameError", `unknown frame type ${type}`);
}

function connectionMethod(c: DispatchTarget, m: Method): void {
  if (!c.handshake.done) return c.handshake.handle(m);
  switch (m.id) {
    case MethodId.ConnectionClose:
      return c.closing.closedByClient();
    case MethodId.ConnectionCloseOk:
      return c.closing.destroy();
    case MethodId.ConnectionUpdateSecret:
      return c.login.updateSecret(m.args.newSecret.toString("utf8"));
    default:
      throw new BrokerError("commandInvalid", `unexpected method ${m.name} on channel 0`);
  }
}

function channelFor(c: DispatchTarget, number: number, m: Method): Channel {
  if (m.id === MethodId.ChannelOpen) return c.channels.open(number, c, c.tuning.channelMax);
  const ch = c.channels.get(number);
  if (!ch) throw new BrokerError("channelError", "expected 'channel.open'");
  return ch;
}
