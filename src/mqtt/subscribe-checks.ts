/**
 * What makes a SUBSCRIBE packet a protocol violation, checked before anything is bound (MQTT
 * 3.1.1 §4.8, MQTT 5 §3.8.3): an invalid topic filter, a shared subscription `$share/<group>/<filter>`
 * whose group is empty or holds `/`, `+` or `#`, or whose filter is missing or invalid
 * [MQTT-4.8.2-1, MQTT-4.8.2-2], and No Local on a shared subscription [MQTT-3.8.3-4].
 */
import type { ISubscribePacket } from "mqtt-packet";
import { RC } from "./mqtt-reason-codes.js";
import { isValidTopicFilter } from "./mqtt-topic.js";

const SHARE_PREFIX = "$share/";

export interface SharedFilter {
  /** The Share Name. */
  readonly group: string;
  /** The topic filter the group subscribes to. */
  readonly filter: string;
}

/** The parts of a shared subscription's filter; null for a filter that is not shared; "invalid" for a malformed one. */
export function sharedFilter(topic: string): SharedFilter | null | "invalid" {
  if (!topic.startsWith(SHARE_PREFIX)) return null;
  const slash = topic.indexOf("/", SHARE_PREFIX.length);
  if (slash <= SHARE_PREFIX.length) return "invalid";
  const group = topic.slice(SHARE_PREFIX.length, slash);
  if (group.includes("+") || group.includes("#")) return "invalid";
  const filter = topic.slice(slash + 1);
  if (filter === "" || !isValidTopicFilter(filter)) return "invalid";
  return { group, filter };
}

export interface SubscribeViolation {
  readonly reasonCode: number;
  readonly why: string;
}

/** Null when the packet may be handled. */
export function subscribeViolation(p: ISubscribePacket): SubscribeViolation | null {
  for (const s of p.subscriptions) {
    if (!isValidTopicFilter(s.topic)) return { reasonCode: RC.topicFilterInvalid, why: `invalid topic filter '${s.topic}'` };
    const shared = sharedFilter(s.topic);
    if (shared === "invalid") return { reasonCode: RC.topicFilterInvalid, why: `invalid shared subscription '${s.topic}'` };
    if (shared !== null && s.nl === true) return { reasonCode: RC.protocolError, why: `No Local on shared subscription '${s.topic}'` };
  }
  return null;
}
