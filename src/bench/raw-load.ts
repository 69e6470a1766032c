/**
 * The load of `coney-perf --client raw` (amqp-raw-client.ts): the same publisher and consumer as
 * perf-worker.ts runs with @cloudamqp/amqp-client — the send time in a body's first 8 bytes,
 * confirms with a window, one multiple ack every N deliveries — at a fraction of the client's
 * CPU. A publish writes a per-message head (method frame, content header, the first body
 * frame's header and the 8-byte send time) and a tail every message shares (the rest of the body
 * frames, never written to), so a publish copies 8 bytes of body, not the body. A consumer reads
 * only the send time of each body it is shown.
 */
import { encodeBasicAck, encodeBasicConsume, encodeBasicProperties, encodeBasicPublish, encodeBasicQos, encodeConfirmSelect, MethodId, writeContentHeader } from "../amqp/codec/generated.js";
import { OutputBuffer } from "../amqp/codec/output-buffer.js";
import type { FieldTable } from "../broker/values/field-value.js";
import { RAW_CHANNEL, type AmqpRawConnection } from "./amqp-raw-client.js";
import { LatencyHistogram } from "./latency-histogram.js";
import type { PerfOptions } from "./perf-options.js";

const FRAME_HEADER = 2;
const BASIC_CLASS = 60;
/** A publisher corks this many bytes of messages (or one message, if larger) into one write. */
const BATCH_BYTES = 256 * 1024;

const now = (): number => performance.timeOrigin + performance.now();
const u64 = (b: Buffer, at: number): number => b.readUInt32BE(at) * 2 ** 32 + b.readUInt32BE(at + 4);

/** One message's frames, as the head copied per publish and the tail shared by all. */
export interface PublishTemplate {
  readonly head: Buffer;
  /** Where in the head the send time goes. */
  readonly timeAt: number;
  readonly tail: Buffer;
}

export function publishTemplate(exchange: string, routingKey: string, size: number, persistent: boolean, frameMax: number): PublishTemplate {
  const out = new OutputBuffer(512);
  encodeBasicPublish(out, RAW_CHANNEL, { ticket: 0, exchange, routingKey, mandatory: false, immediate: false });
  writeContentHeader(out, RAW_CHANNEL, BASIC_CLASS, size, encodeBasicProperties(persistent ? { deliveryMode: 2 } : {}));
  // The first body frame's payload starts after the method frame, the content header and its own 7-byte header.
  const timeAt = out.length + 7;
  const zeros = Buffer.alloc(size);
  const max = frameMax - 8;
  for (let off = 0; off < size; off += max) out.writeBodyFrame(RAW_CHANNEL, zeros.subarray(off, Math.min(size, off + max)), true);
  const whole = out.take();
  return { head: Buffer.from(whole.subarray(0, timeAt + 8)), timeAt, tail: whole.subarray(timeAt + 8) };
}

/** Unconfirmed publishes: multiple acks settle up to a tag, single ones one tag each. */
export class ConfirmWindow {
  published = 0;
  private upTo = 0;
  private readonly singles = new Set<number>();
  private wake: (() => void) | null = null;

  get outstanding(): number {
    return this.published - this.upTo - this.singles.size;
  }

  settle(tag: number, multiple: boolean): void {
    if (tag <= this.upTo) return;
    if (multiple) {
      for (const s of this.singles) if (s <= tag) this.singles.delete(s);
      this.upTo = tag;
    } else {
      this.singles.add(tag);
    }
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Resolves once fewer than `limit` are unconfirmed. */
  async below(limit: number): Promise<void> {
    while (this.outstanding >= limit) await new Promise<void>((r) => (this.wake = r));
  }
}

export async function produceRaw(c: AmqpRawConnection, o: PerfOptions, exchange: string, routingKey: string, until: number): Promise<number> {
  const window = o.confirm > 0 ? new ConfirmWindow() : null;
  c.load = {
    method: (id, buf, start) => {
      if (id === MethodId.BasicAck || id === MethodId.BasicNack) window?.settle(u64(buf, start + 4), (buf[start + 12]! & 1) === 1);
    },
    frame: () => {},
    body: () => {},
  };
  if (window !== null) await c.call((out) => encodeConfirmSelect(out, RAW_CHANNEL, { nowait: false }), MethodId.ConfirmSelectOk);
  const t = publishTemplate(exchange, routingKey, Math.max(8, o.size), o.persistent, c.frameMax);
  const socket = c.socket;
  let sent = 0;
  while (now() < until) {
    let bytes = 0;
    let ok = true;
    socket.cork();
    while (bytes < BATCH_BYTES && (window === null || window.outstanding < o.confirm)) {
      const head = Buffer.allocUnsafe(t.head.length);
      t.head.copy(head);
      head.writeDoubleLE(now(), t.timeAt);
      socket.write(head);
      ok = socket.write(t.tail);
      bytes += head.length + t.tail.length;
      sent++;
      if (window !== null) window.published++;
    }
    socket.uncork();
    if (!ok) await new Promise((r) => socket.once("drain", r));
    else if (window !== null && window.outstanding >= o.confirm) await window.below(o.confirm);
    else await new Promise((r) => setImmediate(r));
  }
  return sent;
}

export async function consumeRaw(c: AmqpRawConnection, o: PerfOptions, queue: string, until: number): Promise<{ count: number; histogram: LatencyHistogram }> {
  const histogram = new LatencyHistogram();
  const ackEvery = o.prefetch > 0 ? Math.max(1, Math.min(o.multiAckEvery, Math.floor(o.prefetch / 2))) : o.multiAckEvery;
  const time = Buffer.alloc(8);
  let count = 0;
  let unacked = 0;
  let lastTag = 0;
  let bodyLeft = 0;
  let timeFill = 0;
  const done = (): void => {
    const t = now();
    if (t <= until) {
      count++;
      if (timeFill === 8) histogram.record(t - time.readDoubleLE(0));
    }
    if (!o.autoAck && ++unacked >= ackEvery) {
      unacked = 0;
      c.send((out) => encodeBasicAck(out, RAW_CHANNEL, { deliveryTag: lastTag, multiple: true }));
    }
  };
  c.load = {
    method: (id, buf, start) => {
      // basic.deliver: consumer-tag (shortstr), then the delivery tag.
      if (id === MethodId.BasicDeliver) lastTag = u64(buf, start + 5 + buf[start + 4]!);
    },
    frame: (type, _channel, buf, start) => {
      if (type !== FRAME_HEADER) return;
      bodyLeft = u64(buf, start + 4);
      timeFill = 0;
      if (bodyLeft === 0) done();
    },
    body: (_channel, buf, start, end) => {
      if (timeFill < 8) {
        const k = Math.min(8 - timeFill, end - start);
        buf.copy(time, timeFill, start, start + k);
        timeFill += k;
      }
      bodyLeft -= end - start;
      if (bodyLeft === 0) done();
    },
  };
  await c.call((out) => encodeBasicQos(out, RAW_CHANNEL, { prefetchSize: 0, prefetchCount: o.prefetch, global: false }), MethodId.BasicQosOk);
  const args: FieldTable = o.stream === true ? { "x-stream-offset": "next" } : {};
  await c.call((out) => encodeBasicConsume(out, RAW_CHANNEL, { ticket: 0, queue, consumerTag: "", noLocal: false, noAck: o.autoAck, exclusive: false, nowait: false, arguments: args }), MethodId.BasicConsumeOk);
  await new Promise((r) => setTimeout(r, Math.max(0, until - now())));
  return { count, histogram };
}
