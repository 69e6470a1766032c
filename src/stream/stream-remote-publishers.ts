/**
 * A native publisher on a stream another worker (or node) leads (issue 42; docs/CLUSTERING.md "A
 * native publisher on any worker"): as RabbitMQ writes to a stream's leader from whichever node the
 * publisher is on. Each Publish frame's batch goes to the leader with the publisher's reference;
 * the leader deduplicates against the log's sequence, appends and answers once stored, and the
 * client gets PublishConfirm / PublishError with its own publishing ids. The connection counts the
 * batch as unconfirmed until then (stream.initial_credits: the client's reading stops past 50,000),
 * so nothing piles up without bound here or on the link.
 *
 * The stream deleted, its group moved, or its leader lost: the client is told MetadataUpdate
 * stream_not_available once and its publishers on that stream are gone (as RabbitMQ's reader does
 * when a stream's leader goes down); a batch still waiting when the link is lost is never confirmed
 * (it may or may not be on the leader; a publisher with a reference that sends it again after
 * reconnecting is deduplicated there).
 */
import { NO_SEQUENCE, type ForwardedRefusal, type NativeBatch, type RemoteStreamQueue } from "../broker/index.js";
import { RC } from "./protocol.js";
import type { PublisherState, StreamContext } from "./stream-context.js";
import { confirm, publishError } from "./stream-publish-replies.js";
import { tellStreamGone, usingStream } from "./stream-gone.js";

/** Declares publisher `id` on remote stream `q`; false when its leader takes no forwarded publishes (the caller answers as before). */
export function remoteDeclarePublisher(c: StreamContext, id: number, reference: string, q: RemoteStreamQueue): boolean {
  const remote = q.publisher(reference);
  if (remote === null) return false;
  const p: PublisherState = {
    id,
    reference,
    stream: q.name,
    queue: null,
    remote,
    sequence: NO_SEQUENCE,
    published: 0,
    confirmed: 0,
    errored: 0,
    stop: q.whenGone(() => streamGone(c, q.name)),
  };
  c.publishers.set(id, p);
  c.node.counters.publishers++;
  usingStream(c, q.name);
  return true;
}

const codeOf = (why: ForwardedRefusal): number => (why === "empty" ? RC.preconditionFailed : why === "unavailable" ? RC.streamNotAvailable : RC.internalError);

/** One Publish frame's batch to the leader; its answer becomes the client's confirms and errors. */
export function publishRemote(c: StreamContext, p: PublisherState, batch: NativeBatch): void {
  const n = batch.ids.length;
  if (n === 0) return;
  c.unconfirmedChanged(n);
  p.remote!.publish(batch, {
    answered: (confirmed, refused) => {
      c.unconfirmedChanged(-n);
      p.published += confirmed.length;
      if (refused.length > 0) publishError(c, p.id, refused.map(([id, why]) => [id, codeOf(why)]));
      if (confirmed.length > 0) confirm(c, p, confirmed);
    },
    refusedAll: (why) => {
      c.unconfirmedChanged(-n);
      publishError(c, p.id, batch.ids.map((id) => [id, why === "notFound" ? RC.streamDoesNotExist : RC.streamNotAvailable]));
      streamGone(c, p.stream);
    },
    // The leader's loss is told by the stream's gone listener (MetadataUpdate); these are never confirmed.
    lost: () => c.unconfirmedChanged(-n),
  });
}

/** Drops the connection's publishers on remote stream `name` and tells the client once. */
function streamGone(c: StreamContext, name: string): void {
  let dropped = 0;
  for (const p of [...c.publishers.values()]) {
    if (p.remote === null || p.stream !== name) continue;
    c.publishers.delete(p.id);
    p.stop();
    dropped++;
  }
  if (dropped === 0) return;
  c.node.counters.publishers -= dropped;
  tellStreamGone(c, name);
}
