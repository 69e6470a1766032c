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
import { appendNative, NO_SEQUENCE, type EncodedSubBatch, type NativeEntry } from "../broker/index.js";
import { subBatchRecords } from "../store/stream/sub-batch.js";
import { CMD, RC } from "./protocol.js";
import type { PublisherState, StreamContext } from "./stream-context.js";
import { remoteStream, streamFor } from "./stream-lookup.js";
import { readableRemote, remotePublisherSequence } from "./stream-remote-queries.js";
import { decodeNative } from "./stream-message.js";
import { response, type FrameCursor } from "./wire.js";
import { confirm, publishError } from "./stream-publish-replies.js";
import { publishRemote, remoteDeclarePublisher } from "./stream-remote-publishers.js";

const MAX_REFERENCE = 256;

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
  if (q === RC.streamNotAvailable && remoteDeclarePublisher(c, id, reference, remoteStream(c, name)!)) return reply(c, CMD.declarePublisher, corr, RC.ok);
  if (typeof q === "number") return reply(c, CMD.declarePublisher, corr, q);
  const p: PublisherState = {
    id,
    reference,
    stream: q.name,
    queue: q,
    remote: null,
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
  const entries: NativeEntry[] = new Array<NativeEntry>(n);
  /** Publish v2's filter values; null while no message of the frame has one (chunk-filter.ts). */
  let filters: (string | null)[] | null = null;
  for (let i = 0; i < n; i++) {
    ids[i] = body.u64();
    if (version >= 2) {
      const f = body.str();
      if (f !== null && f !== "") (filters ??= new Array<string | null>(n).fill(null))[i] = f;
    }
    entries[i] = body.peekU8() & 0x80 ? subBatchOf(body) : body.bytes();
  }
  c.node.received(n);
  const p = c.publishers.get(publisherId);
  if (p === undefined) return publishError(c, publisherId, ids.map((id) => [id, RC.publisherDoesNotExist]));
  const batch = { ids, entries, filters };
  const q = p.queue;
  // A stream another worker leads: the leader appends and deduplicates (stream-remote-publishers.ts).
  if (q === null) return publishRemote(c, p, batch);
  const journal = c.node.broker.journal;
  const before = journal?.appends ?? 0;
  const { accepted, duplicates, refused, sequence } = appendNative(q, p.reference, p.sequence, batch, decodeNative);
  p.sequence = sequence;
  p.published += accepted.length;
  if (refused.length > 0) publishError(c, publisherId, refused.map(([id, why]) => [id, why === "empty" ? RC.preconditionFailed : RC.streamNotAvailable]));
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
