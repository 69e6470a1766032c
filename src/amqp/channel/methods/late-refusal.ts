/**
 * A definition change this channel was answered ok for, refused afterwards (a spread cluster,
 * docs/CLUSTERING.md "Concurrent changes: etcd's order on every node"): while etcd does not
 * answer, the barrier gives up after its bound and the client hears declare-ok; if the change then
 * loses to an earlier one of another node in etcd's order, the channel is closed with the error
 * the change would have been refused with (406 PRECONDITION_FAILED "inequivalent arg …", 404 …),
 * as RabbitMQ closes a channel on any soft error — the client learns its declare did not stand.
 * A channel closed meanwhile (or reused under its number) is left alone.
 */
import type { LateRefusal } from "../../../broker/index.js";
import type { ChannelState } from "../channel-state.js";

export function lateRefusal(ch: ChannelState, classId: number, methodId: number): LateRefusal {
  return (refusal) => {
    if (ch.state !== "open" || !ch.host.holdsChannel(ch.number, ch)) return;
    ch.host.methodError(refusal, ch.number, classId, methodId);
  };
}
