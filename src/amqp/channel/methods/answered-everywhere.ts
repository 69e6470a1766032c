/**
 * A definition change answered once every node that follows this one applied it (issue 42;
 * docs/CLUSTERING.md, "Answered once everyone knows"): under `coney --workers N` the answer waits
 * for TopologyMirror.settled, so whatever the client does next — anywhere — finds what it changed,
 * as after RabbitMQ's Mnesia transaction. The connection reads no further frame meanwhile
 * (afterLeader), so every channel's order holds.
 *
 * Invariant: a single node (no mirror) answers at once, in the same turn — a null check is its
 * whole cost. The mirror itself skips the round trip when nothing was told since the last barrier.
 */
import type { ChannelState } from "../channel-state.js";
import { definitionsAnswered, definitionsFollowed } from "../../../broker/index.js";
import { lateRefusal } from "./late-refusal.js";
import { afterLeader } from "./leader-round-trips.js";

/**
 * Answers with `value` (or what the leader's round trip resolves to) once the others follow.
 * `classId`/`methodId` name the method for an error that closes the channel.
 */
export function answerEverywhere<T>(ch: ChannelState, value: T | Promise<T>, classId: number, methodId: number, answer: (value: T) => void): void {
  const broker = ch.host.broker;
  if (broker.mirror?.settled === undefined && !(value instanceof Promise)) return answer(value);
  // Judged in this turn, right after the change (a spread cluster may refuse it: TopologyMirror.verdict).
  if (!(value instanceof Promise)) return afterLeader(ch, definitionsAnswered(broker, lateRefusal(ch, classId, methodId))!.then(() => value), classId, methodId, answer);
  const followed = Promise.resolve(value).then(async (v) => {
    await definitionsFollowed(broker);
    return v;
  });
  afterLeader(ch, followed, classId, methodId, answer);
}
