/**
 * Native publishers: DeclarePublisher (write permission; a reference enables deduplication),
 * Publish v1 and v2 (v2's filter value goes into the chunk's filter: src/store/stream/chunk-filter.ts;
 * a sub-entry batch's is not kept), each
 * entry a message or a sub-entry batch (several messages, maybe compressed, under one publishing
 * id: stored as it came, an offset per message, confirmed once; sub-batch.ts),
 * PublishConfirm once the store has synced what the frame appended (the same wait as an AMQP
 * confirm), PublishError, QueryPublisherSequence, DeletePublisher.
 *
 * Deduplication, as RabbitMQ: a publisher with a reference has its highest publishing id kept in
 * the stream's tracking (durably, written with the messages); a message whose id is not above it
 * is not written again but confirmed.
 */
import type { EncodedSubBatch } from "../broker/index.js";
import { subBatchRecords } from "../store/stream/sub-batch.js";
import { CMD, RC } from "./protocol.js";
import type { PublisherState, StreamContext } from "./stream-context.js";
import { streamFor } from "./stream-lookup.js";
import { readableRemote, remotePublisherSequence } from "./stream-remote-queries.js";
import { decodeNative } from "./stream-message.js";
import { FrameWriter, response, type FrameCursor } from "./wire.js";

const MAX_REFERENCE = 256;
/** A reference's sequence before its first message: publishing ids start at 0, which is new (osiris keeps no entry until a writer's first write). */
const NO_SEQUENCE = -1;

function reply(c: StreamContext, key: number, corr: number, code: number): void {
  if (code !== RC.ok) c.node.countError(code);
  c.send(response(key, corr, code).frame());
}

export function declarePublisher(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const id = body.u8();
  const reference = body.str() ?? "";
  const name = body.str();
  const q = streamFor(c, name, "write");
  if (q === RC.accessRefused) return reply(c, CMD.declarePublisher, corr, q);
  if (reference.length > MAX_REFERENCE) return reply(c, CMD.declarePublisher, corr, RC.preconditionFailed);
  if (c.publishers.has(id)) return reply(c, CMD.declarePublisher, corr, RC.preconditionFailed);
  if (reference !== "") for (const p of c.publishers.values()) if (p.reference === reference && p.stream === name) return reply(c, CMD.declarePublisher, corr, RC.preconditionFailed);
  if (typeof q === "number") return reply(c, CMD.declarePublisher, corr, q);
  const p: PublisherState = {
    id,
    reference,
    stream: q.name,
    queue: q,
    sequence: reference === "" ? NO_SEQUENCE : (q.stream.publisherSequence(reference) ?? NO_SEQUENCE),
    published: 0,
    confirmed: 0,
    errored: 0,
    stop: () => c.links.detach(q, null),
  };
  c.links.attach(q, null);
  c.publishers.set(id, p);
  c.node.counters.publishers++;
  reply(c, CMD.declarePublisher, corr, RC.ok);
}

export function deletePublisher(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const id = body.u8();
  const p = c.publishers.get(id);
  if (p === undefined) return reply(c, CMD.deletePublisher, corr, RC.publisherDoesNotExist);
  c.publishers.delete(id);
  c.node.counters.publishers--;
  p.stop();
  reply(c, CMD.deletePublisher, corr, RC.ok);
}

export function queryPublisherSequence(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const reference = body.str() ?? "";
  const name = body.str();
  const remote = readableRemote(c, name);
  if (remote !== null) return remotePublisherSequence(c, corr, remote, reference);
  const q = streamFor(c, name, "read");
  if (typeof q === "number") {
    c.node.countError(q);
    return void c.send(response(CMD.queryPublisherSequence, corr, q).u64(0).frame());
  }
  c.send(response(CMD.queryPublisherSequence, corr, RC.ok).u64(q.stream.publisherSequence(reference) ?? 0).frame());
}

/**
 * Publish: the whole frame is parsed before anything is appended (a malformed frame writes
 * nothing); then each message is appended, skipped as a duplicate, or refused.
 */
export function publish(c: StreamContext, version: number, body: FrameCursor): void {
  const publisherId = body.u8();
  const n = body.count(12);
  const ids: number[] = new Array<number>(n);
  const messages: (Buffer | EncodedSubBatch | null)[] = new Array<Buffer | EncodedSubBatch | null>(n);
  /** Publish v2's filter values; null while no message of the frame has one (chunk-filter.ts). */
  let filters: (string | null)[] | null = null;
  for (let i = 0; i < n; i++) {
    ids[i] = body.u64();
    if (version >= 2) {
      const f = body.str();
      if (f !== null && f !== "") (filters ??= new Array<string | null>(n).fill(null))[i] = f;
    }
    messages[i] = body.peekU8() & 0x80 ? subBatchOf(body) : body.bytes();
  }
  c.node.received(n);
  const p = c.publishers.get(publisherId);
  if (p === undefined) return publishError(c, publisherId, ids.map((id) => [id, RC.publisherDoesNotExist]));
  const q = p.queue;
  const journal = c.node.broker.journal;
  const before = journal?.appends ?? 0;
  const duplicates: number[] = [];
  const refused: [number, number][] = [];
  const accepted: number[] = [];
  const dedup = p.reference !== "";
  // Another connection may publish under the same reference: the stream's sequence is the truth.
  if (dedup) p.sequence = Math.max(p.sequence, q.stream.publisherSequence(p.reference) ?? NO_SEQUENCE);
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    const m = messages[i]!;
    if (dedup && id <= p.sequence) {
      duplicates.push(id);
      continue;
    }
    if (m === null || (!Buffer.isBuffer(m) && m.records === 0)) {
      refused.push([id, RC.preconditionFailed]);
      continue;
    }
    if ((Buffer.isBuffer(m) ? q.appendEncoded(m, decodeNative, filters === null ? null : filters[i]!) : q.appendSubBatch(m, decodeNative)) < 0) {
      refused.push([id, RC.streamNotAvailable]);
      continue;
    }
    if (dedup) p.sequence = id;
    accepted.push(id);
  }
  p.published += accepted.length;
  if (dedup && accepted.length > 0) q.stream.setPublisherSequence(p.reference, p.sequence);
  if (refused.length > 0) publishError(c, publisherId, refused);
  if (duplicates.length > 0) confirm(c, p, duplicates);
  if (accepted.length === 0) return;
  if (journal === null || journal.appends === before) return confirm(c, p, accepted);
  c.unconfirmedChanged(accepted.length);
  c.node.broker.whenStored(
    {
      synced: (_t, ok) => {
        c.unconfirmedChanged(-accepted.length);
        if (ok) confirm(c, p, accepted);
        else publishError(c, publisherId, accepted.map((id) => [id, RC.internalError]));
      },
    },
    0,
  );
}

/** A sub-entry batch: its header (top bit set, compression, records, uncompressed size, size) and its data, not copied. */
function subBatchOf(body: FrameCursor): EncodedSubBatch {
  const compression = (body.u8() >> 4) & 0x07;
  const records = body.u16();
  const uncompressedBytes = body.u32();
  const data = body.slice(body.u32());
  return { compression, records, uncompressedBytes, data, expand: () => subBatchRecords(compression, records, data) };
}

function confirm(c: StreamContext, p: PublisherState, ids: readonly number[]): void {
  if (c.closed) return;
  p.confirmed += ids.length;
  c.node.confirmed(ids.length);
  const w = new FrameWriter(CMD.publishConfirm, 1, 9 + ids.length * 8).u8(p.id).i32(ids.length);
  for (const id of ids) w.u64(id);
  c.send(w.frame());
}

function publishError(c: StreamContext, publisherId: number, errors: readonly (readonly [number, number])[]): void {
  const p = c.publishers.get(publisherId);
  if (p) p.errored += errors.length;
  for (const [, code] of errors) c.node.countError(code);
  if (c.closed) return;
  const w = new FrameWriter(CMD.publishError, 1, 9 + errors.length * 10).u8(publisherId).i32(errors.length);
  for (const [id, code] of errors) w.u64(id).u16(code);
  c.send(w.frame());
}
