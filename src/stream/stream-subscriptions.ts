/**
 * Native subscriptions: Subscribe (read permission; offset specification first, last, next, an
 * offset or a timestamp; an offset past the end waits at the end), Credit (chunks the client may
 * be sent; an unknown subscription gets RabbitMQ's Credit response), Deliver v1 or v2 (whole
 * committed chunks, the bytes the segment file holds, sent without copying), Unsubscribe.
 * A subscription stops sending while the socket's buffer is full and resumes at `drain`. With
 * `single-active-consumer` (and a `name`) it joins its group (stream-sac.ts) and sends only while
 * active, from the offset the client answers ConsumerUpdate with. A stream led by another worker
 * is read from its leader's log (stream-remote-subscriptions.ts).
 */
import type { SacMember } from "../broker/index.js";
import { CMD, RC, RESPONSE } from "./protocol.js";
import { offsetSpec } from "./offset-spec.js";
import type { StreamContext, SubscriptionState } from "./stream-context.js";
import { remoteStream, streamFor } from "./stream-lookup.js";
import { remoteSubscribe } from "./stream-remote-subscriptions.js";
import { chunksOf } from "./stream-message.js";
import { partitionsOf } from "./stream-super.js";
import { FrameWriter, MalformedFrame, response, type FrameCursor } from "./wire.js";
import { chunkForClient, filterOf } from "../store/stream/chunk-format.js";
import { ChunkMatcher, filterFromProperties } from "../store/stream/chunk-filter.js";

function reply(c: StreamContext, corr: number, code: number): void {
  if (code !== RC.ok) c.node.countError(code);
  c.send(response(CMD.subscribe, corr, code).frame());
}

export function subscribe(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const id = body.u8();
  const name = body.str();
  const start = offsetSpec(body);
  if (start === null) throw new MalformedFrame("no offset specification");
  const initialCredit = body.u16();
  const properties = body.remaining > 0 ? body.map() : new Map<string, string>();
  if (c.subscriptions.has(id)) return reply(c, corr, RC.subscriptionIdAlreadyExists);
  const found = streamFor(c, name, "read");
  // Led by another worker or node: read from its log over the link, when it serves such reads.
  if (found === RC.streamNotAvailable && remoteSubscribe(c, corr, id, remoteStream(c, name)!, start, initialCredit, properties)) return;
  if (typeof found === "number") return reply(c, corr, found);
  const q = found;
  const sac = properties.get("single-active-consumer") === "true";
  const groupName = properties.get("name") ?? "";
  if (sac && groupName === "") return reply(c, corr, RC.preconditionFailed);
  const superStream = properties.get("super-stream");
  const partitionIndex = sac && superStream !== undefined ? (partitionsOf(c, superStream)?.indexOf(q.name) ?? -1) : -1;
  const groupKey = `${c.openVhost.name}\u0000${q.name}\u0000${groupName}`;
  const offset = q.startOffset(start);
  // filter.N / match-unfiltered (RabbitMQ 3.13): chunks whose filter cannot match are not sent. A
  // stream kept in memory has no chunk filters: its chunks are built of the messages the filter wants.
  const filter = filterFromProperties(properties);
  let chunks = chunksOf(q.stream, offset, filter);
  const matcher = filter !== null && q.stream.chunkCursor(offset) !== null ? new ChunkMatcher(filter) : null;
  let blocked = false;
  /** False until the turn after the Subscribe response (see the end of this function). */
  let started = sac;
  /** Its place in a single-active-consumer group: ConsumerUpdate, and on activation the client's offset. */
  const member: SacMember = {
    update(active, answered) {
      if (!active) s.active = false;
      c.consumerUpdate(id, active, (answer) => {
        if (active && c.subscriptions.get(id) === s) {
          const from = answer !== null && answer.u16() === RC.ok && answer.remaining >= 2 ? offsetSpec(answer) : null;
          if (from !== null) {
            s.offset = q.startOffset(from);
            chunks = chunksOf(q.stream, s.offset, filter);
          }
          s.active = true;
          pump();
        }
        answered();
      });
    },
  };
  const s: SubscriptionState = {
    id,
    stream: q.name,
    queue: q,
    properties,
    credit: initialCredit,
    consumed: 0,
    offset,
    active: !sac,
    wake: pump,
    stop: () => {
      if (c.subscriptions.get(id) !== s) return;
      c.subscriptions.delete(id);
      if (sac) c.node.sac.leave(groupKey, member);
      c.links.detach(q, pump);
      q.nativeConsumerChanged(-1);
      c.node.counters.consumers--;
    },
  };
  /** Sends chunks while there is credit, something committed, and room in the socket. */
  function pump(): void {
    while (started && s.active && s.credit > 0 && !blocked && c.subscriptions.get(id) === s) {
      const chunk = chunks.next();
      if (chunk === null) return;
      if (matcher !== null && !matcher.matches(filterOf(chunk.bytes))) {
        s.offset = chunk.firstOffset + chunk.count;
        continue;
      }
      s.credit--;
      s.consumed += chunk.count;
      s.offset = chunk.firstOffset + chunk.count;
      c.node.delivered(chunk.count);
      const v2 = c.deliverVersion >= 2;
      const head = new FrameWriter(CMD.deliver, v2 ? 2 : 1, 17).u8(id);
      if (v2) head.u64(Math.max(chunk.firstOffset, q.stream.lastChunkOffset < q.stream.committedOffset ? q.stream.lastChunkOffset : chunk.firstOffset));
      const frame = head.frame();
      // Sent without its filter, as osiris sends a chunk to a consumer; the chunk's buffer goes
      // back to the cursor once written (it reads a later chunk into it).
      const parts = chunkForClient(chunk.bytes);
      frame.writeUInt32BE(frame.length - 4 + (parts.length === 1 ? chunk.bytes.length : chunk.bytes.length - chunk.bytes[44]!), 0);
      if (!c.send(parts.length === 1 ? [frame, chunk.bytes] : [frame, ...parts], chunk.release ?? undefined)) {
        blocked = true;
        c.whenWritable(() => {
          blocked = false;
          pump();
        });
      }
    }
  }
  c.subscriptions.set(id, s);
  c.links.attach(q, pump);
  q.nativeConsumerChanged(1);
  c.node.counters.consumers++;
  reply(c, corr, RC.ok);
  if (sac) c.node.sac.join(groupKey, member, partitionIndex);
  // The chunks already there follow two event-loop turns later, not with the response: a client
  // that reads both at once runs its message handler before its subscribe call has returned
  // (rabbitmq-stream-js-client: the handler cannot yet use the consumer it is given, e.g. to
  // storeOffset; issue 48). The first turn lets the response leave, the second lets a reader
  // polling in the next turn (a client in this process, as in coney/testing) take it alone.
  // RabbitMQ's reader likewise sends the response, then reads the log to send chunks: for a
  // client in another process the gap is a matter of timing there as here.
  else
    setImmediate(() =>
      setImmediate(() => {
        started = true;
        pump();
      }),
    );
}

export function credit(c: StreamContext, body: FrameCursor): void {
  const id = body.u8();
  const n = body.u16();
  const s = c.subscriptions.get(id);
  if (s === undefined) {
    c.node.countError(RC.subscriptionIdDoesNotExist);
    // The Credit response carries no correlation id: code, then the subscription.
    c.send(new FrameWriter(CMD.credit | RESPONSE, 1, 16).u16(RC.subscriptionIdDoesNotExist).u8(id).frame());
    return;
  }
  s.credit += n;
  s.wake();
}

export function unsubscribe(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const id = body.u8();
  const s = c.subscriptions.get(id);
  if (s === undefined) {
    c.node.countError(RC.subscriptionIdDoesNotExist);
    return void c.send(response(CMD.unsubscribe, corr, RC.subscriptionIdDoesNotExist).frame());
  }
  s.stop();
  c.send(response(CMD.unsubscribe, corr, RC.ok).frame());
}
