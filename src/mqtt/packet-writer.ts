/**
 * The output side of an MQTT connection: packets encoded with mqtt-packet and written to the
 * stream, those of one event-loop turn in one write (cork until the next tick). It enforces the
 * client's Maximum Packet Size (MQTT 5 §3.1.2.11.4: a packet that would exceed it is not sent;
 * the caller learns so and treats a PUBLISH as delivered) and applies outbound topic aliases to
 * PUBLISH packets (topic-aliases.ts). Counts what it sends for the connection's record.
 */
import type { Duplex } from "node:stream";
import { generate, type Packet } from "mqtt-packet";
import type { TopicAliases } from "./topic-aliases.js";

/** MQTT's largest packet (a remaining length of 268,435,455 plus the fixed header). */
export const MQTT_MAX_PACKET = 268_435_460;

export class PacketWriter {
  /** The largest packet the client accepts (its CONNECT's Maximum Packet Size). */
  maxPacketSize = MQTT_MAX_PACKET;
  /** Outbound topic aliases, when the client takes them. */
  aliases: TopicAliases | null = null;
  sendOct = 0;
  sendCnt = 0;
  /** The vhost's traffic counter, once the client has logged in (its per-vhost send_oct). */
  vhostTraffic: { sendOct: number } | null = null;
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.stream.uncork();
  };

  constructor(
    private readonly stream: Duplex,
    /** mqtt-packet's settings, shared with the parser: the protocol version once CONNECT is read. */
    private readonly settings: { protocolVersion: number },
  ) {}

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
    if (!this.corked) {
      // Packets written in one event-loop turn leave in one write.
      this.corked = true;
      this.stream.cork();
      process.nextTick(this.uncork);
    }
    this.stream.write(buf);
    this.sendOct += buf.length;
    this.sendCnt++;
    if (this.vhostTraffic !== null) this.vhostTraffic.sendOct += buf.length;
    return true;
  }
}
