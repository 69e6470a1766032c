/**
 * "Answered once everyone knows" (issue 42; docs/CLUSTERING.md): on a node others follow
 * (`coney --workers N`, a spread cluster) a client's answer to a definition change — AMQP 0-9-1's
 * declare-ok and bind-ok, MQTT's SUBACK, AMQP 1.0's attach, the stream protocol's Create, a
 * management API write — waits until every other node applied what this node told so far
 * (TopologyMirror.settled), so the client's next step, on whichever node it lands, finds what it
 * made, as after RabbitMQ's Mnesia transaction. Every protocol asks this one function.
 *
 * Invariant: null on a single node (no mirror, or one that cannot tell): the caller answers at
 * once, in the same turn. The mirror itself skips the round trip when nothing was told since its
 * last barrier.
 */
import type { LateRefusal, TopologyMirror } from "../topology-mirror.js";

/** Resolves once every following node applied this node's definition changes so far; null when none follows. */
export function definitionsFollowed(broker: { readonly mirror: TopologyMirror | null }): Promise<void> | null {
  const mirror = broker.mirror;
  return mirror?.settled === undefined ? null : mirror.settled();
}

/**
 * As definitionsFollowed, and rejects with the change's refusal when it lost to an earlier change
 * made on another node (TopologyMirror.verdict). Call it in the same turn as the change it answers
 * (the changes told since the previous call are the ones judged). `late` hears a refusal that
 * comes after the answer (TopologyMirror.verdict).
 */
export function definitionsAnswered(broker: { readonly mirror: TopologyMirror | null }, late?: LateRefusal): Promise<void> | null {
  const mirror = broker.mirror;
  if (mirror?.verdict !== undefined) return mirror.verdict(late);
  return mirror?.settled === undefined ? null : mirror.settled();
}
