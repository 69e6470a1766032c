/**
 * The two packets every MQTT message brings in — PUBLISH from a publisher, PUBACK from a QoS 1
 * subscriber — read straight from a socket chunk, without mqtt-packet's stream parser (its
 * buffer list, debug calls and payload copy cost a publish more than the broker's routing did).
 *
 * Only whole, plain packets are read here: a PUBLISH (MQTT 3.1.1 §3.3; MQTT 5 with an empty
 * property list) or a PUBACK (§3.4; MQTT 5 only with reason Success and no properties). At the
 * first packet that is anything else — another type, incomplete, with properties, QoS 3, a packet id 0, ill-formed UTF-8 in the topic, larger than `maxPacket` — reading stops and
 * the rest of the chunk goes to mqtt-packet, which decides (and reports malformed packets) exactly
 * as before. A payload is a slice of the chunk, not a copy.
 */
import { isUtf8 } from "node:buffer";
import type { IPublishPacket, QoS } from "mqtt-packet";

/** What the connection does with what was read. */
export interface HotPacketSink {
  hotPublish(p: IPublishPacket): void;
  hotPuback(packetId: number): void;
  /** False once a packet closed or paused the connection: the rest is left to the parser. */
  readonly readingHot: boolean;
}

const PUBLISH = 3;
const PUBACK = 4;

/**
 * Reads plain PUBLISH/PUBACK packets from the start of `chunk`; returns where reading stopped (the start of
 * the first packet not read, or chunk.length).
 */
export function readHotPackets(chunk: Buffer, v5: boolean, maxPacket: number, sink: HotPacketSink): number {
  let pos = 0;
  const end = chunk.length;
  while (pos < end && sink.readingHot) {
    const first = chunk[pos]!;
    const type = first >> 4;
    if (type !== PUBLISH && type !== PUBACK) break;
    // Remaining length: at most 4 bytes of 7 bits (§2.2.3).
    let remaining = 0;
    let p = pos + 1;
    let shift = 0;
    let byte = 0x80;
    while ((byte & 0x80) !== 0) {
      if (p >= end || shift > 21) return pos;
      byte = chunk[p++]!;
      remaining += (byte & 0x7f) << shift;
      shift += 7;
    }
    const packetEnd = p + remaining;
    if (packetEnd > end || packetEnd - pos > maxPacket) break;
    if (type === PUBACK) {
      // MQTT 5 may add reason Success and an empty property list (§3.4.2.1): still plain.
      if (first !== 0x40 || remaining < 2) break;
      if (remaining > 2 && (!v5 || remaining > 4 || chunk[p + 2] !== 0 || (remaining === 4 && chunk[p + 3] !== 0))) break;
      const id = chunk.readUInt16BE(p);
      if (id === 0) break;
      pos = packetEnd;
      sink.hotPuback(id);
      continue;
    }
    const qos = ((first >> 1) & 3) as QoS | 3;
    if (qos === 3 || remaining < 2) break;
    const q: QoS = qos;
    const topicLength = chunk.readUInt16BE(p);
    p += 2;
    if (p + topicLength > packetEnd) break;
    const topic = chunk.toString("utf8", p, p + topicLength);
    if (topic.includes("\uFFFD") && !isUtf8(chunk.subarray(p, p + topicLength))) break;
    p += topicLength;
    let messageId = 0;
    if (qos > 0) {
      if (p + 2 > packetEnd) break;
      messageId = chunk.readUInt16BE(p);
      if (messageId === 0) break;
      p += 2;
    }
    if (v5) {
      // Properties present (or a truncated packet): mqtt-packet reads them.
      if (p >= packetEnd || chunk[p] !== 0) break;
      p++;
    }
    const packet: IPublishPacket = { cmd: "publish", topic, payload: chunk.subarray(p, packetEnd), qos: q, dup: (first & 8) !== 0, retain: (first & 1) !== 0 };
    if (qos > 0) packet.messageId = messageId;
    pos = packetEnd;
    sink.hotPublish(packet);
  }
  return pos;
}
