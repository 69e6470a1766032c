/**
 * A native Subscribe on a stream another worker (or node) leads (issue 42; docs/CLUSTERING.md
 * "Streams across the workers"): served from the leader's log over the node link
 * (RemoteStreamQueue.readNative), as RabbitMQ serves a subscription on any node holding a member.
 * The Subscribe response waits for the leader to register the read (a stream deleted meanwhile
 * answers stream_does_not_exist, one no longer led there stream_not_available); the client's credit
 * is passed on, so the leader sends at most what the client asked for and nothing piles up here;
 * each chunk arrives as the client's Deliver carries it and goes out behind a Deliver head, its
 * offsets the log's own. Unsubscribe and the connection's close cancel the read; its end (the
 * stream deleted, its leader gone or moved) is told as RabbitMQ tells it: MetadataUpdate
 * stream_not_available, after which clients subscribe again.
 *
 * A single-active-consumer subscription joins its group on the leader (one place decides it,
 * beside the leader's own members: single-active-groups.ts); it is sent nothing until the leader
 * makes it active, and each turn is asked of the client with ConsumerUpdate, its answer (the offset
 * to start from) going back to the leader. A leader of an earlier version runs no groups for reads:
 * such a Subscribe then keeps the answer stream_not_available, and Metadata names the leader.
 */
import { PARTITION_INDEX_PROPERTY, type RemoteStreamQueue, type StreamStart } from "../broker/index.js";
import { CMD, RC } from "./protocol.js";
import type { StreamContext, SubscriptionState } from "./stream-context.js";
import { partitionsOf } from "./stream-super.js";
import { offsetSpec } from "./offset-spec.js";
import { tellStreamGone, usingStream } from "./stream-gone.js";
import { FrameWriter, response } from "./wire.js";

/** Subscribes `id` to remote stream `q`; false when its leader serves no such reads (the caller answers as before). */
export function remoteSubscribe(c: StreamContext, corr: number, id: number, q: RemoteStreamQueue, start: StreamStart, initialCredit: number, properties: ReadonlyMap<string, string>): boolean {
  /** What the leader reads: the client's properties (and a partition's index for a group). */
  let terms = properties;

  const sac = properties.get("single-active-consumer") === "true";
  if (sac) {
    const groupName = properties.get("name") ?? "";
    if (groupName === "") {
      c.node.countError(RC.preconditionFailed);
      c.send(response(CMD.subscribe, corr, RC.preconditionFailed).frame());
      return true;
    }
    // A super stream partition's group activates member (index mod size): the index goes with the read.
    const superStream = properties.get("super-stream");
    const index = superStream === undefined ? -1 : (partitionsOf(c, superStream)?.indexOf(q.name) ?? -1);
    terms = new Map(properties).set(PARTITION_INDEX_PROPERTY, String(index));
  }
  /** False until the turn after the Subscribe response (as a local subscription: stream-subscriptions.ts). */
  let started = false;
  /** Chunks that came before then (at most the initial credit). */
  const early: Array<() => void> = [];
  /** The credit the leader knows of: the client's, less the chunks it has sent. */
  let leaderCredit = initialCredit;
  const s: SubscriptionState = {
    id,
    stream: q.name,
    queue: null,
    properties,
    credit: initialCredit,
    consumed: 0,
    offset: 0,
    remoteCommitted: 0,
    active: !sac,
    // Credit the client gave since the leader last heard: passed on.
    wake: () => {
      const more = s.credit - leaderCredit;
      if (more <= 0) return;
      leaderCredit += more;
      handle?.credit(more);
    },
    stop: () => {
      if (c.subscriptions.get(id) !== s) return;
      c.subscriptions.delete(id);
      handle?.cancel();
      if (registered) c.node.counters.consumers--;
    },
  };
  let registered = false;
  const deliver = (first: number, count: number, committedChunk: number, bytes: Buffer, done: () => void): void => {
    if (c.subscriptions.get(id) !== s || c.closed) return done();
    s.consumed += count;
    s.offset = first + count;
    c.node.delivered(count);
    const v2 = c.deliverVersion >= 2;
    const head = new FrameWriter(CMD.deliver, v2 ? 2 : 1, 17).u8(id);
    if (v2) head.u64(committedChunk);
    const frame = head.frame();
    frame.writeUInt32BE(frame.length - 4 + bytes.length, 0);
    // Not held back when the socket is full: the leader sends no more than the client's credit.
    c.send([frame, bytes], done);
  };
  const handle = q.readNative(
    { start, credit: initialCredit, properties: terms },
    {
      started: () => {
        if (c.subscriptions.get(id) !== s) return;
        registered = true;
        c.node.counters.consumers++;
        c.send(response(CMD.subscribe, corr, RC.ok).frame());
        setImmediate(() =>
          setImmediate(() => {
            started = true;
            for (const send of early.splice(0)) send();
          }),
        );
      },
      chunk: (first, count, committedChunk, committedOffset, bytes, done) => {
        s.credit--;
        leaderCredit--;
        s.remoteCommitted = committedOffset;
        if (started) deliver(first, count, committedChunk, bytes, done);
        else early.push(() => deliver(first, count, committedChunk, bytes, done));
      },
      // Its group's turn, decided on the leader: the client is asked, its answer goes back.
      update: (active, answer) => {
        if (!active) s.active = false;
        if (c.subscriptions.get(id) !== s) return answer(null);
        c.consumerUpdate(id, active, (reply) => {
          if (active && c.subscriptions.get(id) === s) s.active = true;
          answer(active && reply !== null && reply.u16() === RC.ok && reply.remaining >= 2 ? offsetSpec(reply) : null);
        });
      },
      ended: (why) => {
        for (const send of early.splice(0)) send();
        const wasOurs = c.subscriptions.get(id) === s;
        if (wasOurs) c.subscriptions.delete(id);
        if (!registered) {
          if (!wasOurs) return;
          const code = why === "notFound" ? RC.streamDoesNotExist : RC.streamNotAvailable;
          c.node.countError(code);
          return void c.send(response(CMD.subscribe, corr, code).frame());
        }
        if (!wasOurs) return;
        c.node.counters.consumers--;
        tellStreamGone(c, q.name);
      },
    },
  );
  if (handle === null) return false;
  c.subscriptions.set(id, s);
  usingStream(c, q.name);
  return true;
}

