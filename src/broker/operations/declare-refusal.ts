/**
 * What a declare made on another node would be answered here, now (a spread cluster,
 * docs/CLUSTERING.md "Concurrent changes: etcd's order on every node"): RabbitMQ refuses a
 * redeclare whose properties differ from the existing object's (406 PRECONDITION_FAILED
 * "inequivalent arg …"), so of two declares of one exchange or queue with different properties,
 * the later one in etcd's order is the one refused, on every node. The broker's own equivalence
 * rules (equivalence.ts) decide, so the refusal's text is the one a local redeclare gets.
 */
import { BrokerError } from "../../errors/broker-error.js";
import { assertExchangeEquivalent, assertQueueEquivalent } from "../equivalence.js";
import type { FieldTable } from "../values/field-value.js";
import type { MirroredChange, MirroredRecord } from "../topology-mirror.js";
import type { VHost } from "../vhost.js";

/**
 * The error a declare of `record` (an exchange's or a queue's, as the definitions log carries it)
 * meets against what `vhosts` holds now; null when it is equivalent, absent, or of another kind.
 */
export function declareRefusal(vhosts: ReadonlyMap<string, VHost>, kind: MirroredChange["kind"], record: MirroredRecord): BrokerError | null {
  const v = vhosts.get(String(record["vhost"]));
  if (v === undefined || (kind !== "exchanges" && kind !== "queues")) return null;
  const name = String(record["name"]);
  const common = { name, durable: record["durable"] === true, autoDelete: record["auto_delete"] === true, arguments: (record["arguments"] ?? {}) as FieldTable };
  try {
    if (kind === "exchanges") {
      const x = v.exchanges.get(name);
      if (x !== undefined) assertExchangeEquivalent(x, { ...common, type: String(record["type"]), internal: record["internal"] === true });
    } else {
      const q = v.queues.get(name);
      if (q !== undefined) assertQueueEquivalent(q, { ...common, exclusiveOwner: null });
    }
  } catch (err) {
    if (err instanceof BrokerError) return err;
    throw err;
  }
  return null;
}
