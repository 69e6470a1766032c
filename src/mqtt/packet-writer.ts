/**
 * The output side of an MQTT connection: the packets of one event-loop turn are gathered into
 * one batch and leave in one write (after the turn's I/O, or at once past BATCH_HIGH_WATER). It
 * enforces the client's Maximum Packet Size (MQTT 5 §3.1.2.11.4: a packet that would exceed it
 * is not sent; the caller learns so and treats a PUBLISH as delivered) and applies outbound topic
 * aliases to PUBLISH packets (topic-aliases.ts). Counts what it sends for the connection's record.
 *
 * The two packets every message costs — a PUBLISH to a subscriber and a PUBACK — are encoded
 * here directly into the batch (MQTT 3.1.1 §3.3 and §3.4; MQTT 5 the same with an empty property
 * list, and a PUBACK with reason Success and no properties may omit both, §3.4.2.1): no packet
 * object, no buffer per packet, the payload not joined or copied when large. Everything else goes
 * through mqtt-packet's generate().
 */
import type { Duplex } from "node:stream";
import { generate, type Packet } from "mqtt-packet";
import type { Body } from "../broker/values/message-body.js";
import type { TopicAliases } from "./topic-aliases.js";

/** MQTT's largest packet (a remaining length of 268,435,455 plus the fixed header). */
export const MQTT_MAX_PACKET = 268_435_460;

/** Buffered output above which the batch is written at once (and `writable` turns false). */
const BATCH_HIGH_WATER = 64 * 1024;
/** Payload parts at least this large are written where they are, not copied into the batch. */
const EXTERNAL_MIN = 4096;
const BATCH_SIZE = 16 * 1024;

/** The fixed header's remaining-length field (MQTT 3.1.1 §2.2.3): bytes it takes. */
function varIntLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x20_0000 ? 3 : 4;
}

export class PacketWriter {
  /** The largest packet the client accepts (its CONNECT's Maximum Packet Size). */
  maxPacketSize = MQTT_MAX_PACKET;
  /** Outbound topic aliases, when the client takes them. */
  aliases: TopicAliases | null = null;
  sendOct = 0;
  sendCnt = 0;
  /** The vhost's traffic counter, once the client has logged in (its per-vhost send_oct). */
  vhostTraffic: { sendOct: number } | null = null;
  private buf = Buffer.allocUnsafe(BATCH_SIZE);
  private pos = 0;
  /** Start of the bytes in `buf` not yet moved to `pieces`. */
  private segStart = 0;
  /** Finished pieces of the batch, in order, ahead of buf[segStart, pos). */
  private pieces: Buffer[] = [];
  private piecesBytes = 0;
  private flushScheduled = false;
  private readonly flushSoon = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  constructor(
    private readonly stream: Duplex,
    /** mqtt-packet's settings, shared with the parser: the protocol version once CONNECT is read. */
    private readonly settings: { protocolVersion: number },
  ) {}

  /** Bytes gathered and not yet written. */
  get pending(): number {
    return this.piecesBytes + this.pos - this.segStart;
  }

  /** False while the socket is backed up or this turn's batch is large: deliveries wait for 'drain'. */
  get writable(): boolean {
    return !this.stream.writableNeedDrain && this.pending < BATCH_HIGH_WATER;
  }

  /** Sends a packet; false when it was not sent (too large for the client, or the stream is gone). */
  send(packet: Packet): boolean {
    if (this.stream.destroyed) return false;
    let aliasSet = "";
    if (packet.cmd === "publish" && this.aliases !== null) {
      const alias = this.aliases.outboundAlias(packet.topic);
      if (alias !== 0) {
        packet.properties = { ...packet.properties, topicAlias: Math.abs(alias) };
        if (alias < 0) packet.topic = "";
        else aliasSet = packet.topic;
      }
    }
    const buf = generate(packet, this.settings);
    if (buf.length > this.maxPacketSize) {
      if (aliasSet !== "") this.aliases!.unsent(aliasSet);
      return false;
    }
    this.cut();
    this.pieces.push(buf);
    this.piecesBytes += buf.length;
    this.sent(buf.length);
    return true;
  }

  /**
   * A PUBLISH without properties (3.1.1, or 5 with none to send) to a client that takes no topic
   * aliases; false when it was not sent (too large for the client, or the stream is gone).
   */
  sendPublish(topic: string, payload: Body, payloadLength: number, qos: 0 | 1 | 2, packetId: number, dup: boolean, retain: boolean, v5: boolean): boolean {
    if (this.stream.destroyed) return false;
    const topicLength = Buffer.byteLength(topic);
    const remaining = 2 + topicLength + (qos > 0 ? 2 : 0) + (v5 ? 1 : 0) + payloadLength;
    const total = 1 + varIntLength(remaining) + remaining;
    if (total > this.maxPacketSize) return false;
    this.ensure(total - payloadLength);
    const b = this.buf;
    let p = this.pos;
    b[p++] = 0x30 | (dup ? 8 : 0) | (qos << 1) | (retain ? 1 : 0);
    p = writeVarInt(b, p, remaining);
    b.writeUInt16BE(topicLength, p);
    p += 2;
    p += b.write(topic, p, "utf8");
    if (qos > 0) {
      b.writeUInt16BE(packetId, p);
      p += 2;
    }
    if (v5) b[p++] = 0; // property length
    this.pos = p;
    if (Buffer.isBuffer(payload)) this.payloadPart(payload);
    else for (const part of payload) this.payloadPart(part);
    this.sent(total);
    return true;
  }

  /** PUBACK with reason Success (3.1.1, or 5 with the reason code and properties omitted). */
  sendPuback(packetId: number): void {
    if (this.stream.destroyed) return;
    this.ensure(4);
    const b = this.buf;
    const p = this.pos;
    b[p] = 0x40;
    b[p + 1] = 2;
    b.writeUInt16BE(packetId, p + 2);
    this.pos = p + 4;
    this.sent(4);
  }

  /** Writes the batch now (normally once the event-loop turn has read what it will). */
  flush(): void {
    if (this.pending === 0 || this.stream.destroyed) return;
    this.cut();
    const pieces = this.pieces;
    this.pieces = [];
    this.piecesBytes = 0;
    if (pieces.length === 1) this.stream.write(pieces[0]!);
    else {
      this.stream.cork();
      for (const piece of pieces) this.stream.write(piece);
      this.stream.uncork();
    }
    // The written bytes are never written over: what follows goes after them, or into a new buffer.
    if (this.buf.length - this.pos < BATCH_SIZE / 4) {
      this.buf = Buffer.allocUnsafe(BATCH_SIZE);
      this.pos = 0;
      this.segStart = 0;
    }
  }

  private sent(bytes: number): void {
    this.sendOct += bytes;
    this.sendCnt++;
    if (this.vhostTraffic !== null) this.vhostTraffic.sendOct += bytes;
    if (this.pending >= BATCH_HIGH_WATER) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      // setImmediate, not nextTick: the packets answering every socket read of this event-loop
      // turn share one write (one syscall, which a profile showed as a quarter of the broker's
      // time when each read's PUBACK or PUBLISH went out on its own).
      setImmediate(this.flushSoon);
    }
  }

  private payloadPart(part: Buffer): void {
    if (part.length < EXTERNAL_MIN) {
      this.ensure(part.length);
      part.copy(this.buf, this.pos);
      this.pos += part.length;
      return;
    }
    this.cut();
    this.pieces.push(part);
    this.piecesBytes += part.length;
  }

  /** Room for n more bytes in `buf`: the current segment moves to a larger buffer if needed. */
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.cut();
    this.buf = Buffer.allocUnsafe(Math.max(BATCH_SIZE, n));
    this.pos = 0;
    this.segStart = 0;
  }

  /** Ends the current segment of `buf`: it becomes a piece, and writing continues after it. */
  private cut(): void {
    if (this.pos === this.segStart) return;
    this.pieces.push(this.buf.subarray(this.segStart, this.pos));
    this.piecesBytes += this.pos - this.segStart;
    this.segStart = this.pos;
  }
}

/** Writes the remaining length (MQTT 3.1.1 §2.2.3: 7 bits per byte, high bit = more); returns the next position. */
function writeVarInt(b: Buffer, p: number, n: number): number {
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n > 0) byte |= 0x80;
    b[p++] = byte;
  } while (n > 0);
  return p;
}
