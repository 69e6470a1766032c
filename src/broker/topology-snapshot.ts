/**
 * The whole topology as mirrored changes, for a node that starts following (topology-mirror.ts):
 * it applies the snapshot, then the live changes made after it. `followSnapshot` also removes
 * what the follower holds and the snapshot does not (it was deleted while the follower was away),
 * so the follower ends with exactly the leader's topology, whatever it held before.
 *
 * Order matters and is fixed: vhosts, users and what refers to them first; exchanges before
 * queues before the bindings between them; removals in the reverse order.
 */
import type { Broker } from "./broker.js";
import { bindingDefinition, exchangeDefinition } from "./definition-records.js";
import { mirroredQueueRecord } from "./operations/queue-operations.js";
import type { DefinitionKind } from "./definitions-sink.js";
import { userDefinition } from "./operations/user-operations.js";
import { applyMirroredChange } from "./topology-apply.js";
import type { MirroredChange, MirroredRecord } from "./topology-mirror.js";

const ORDER: readonly DefinitionKind[] = ["vhosts", "users", "permissions", "topic_permissions", "policies", "operator_policies", "parameters", "global_parameters", "exchanges", "queues", "bindings"];

/** Every record other nodes follow, in the order a follower applies them. */
export function topologySnapshot(b: Broker): MirroredChange[] {
  const records = recordsOf(b);
  return ORDER.flatMap((kind) => (records.get(kind) ?? []).map((record) => ({ kind, op: "put" as const, record })));
}

/**
 * Makes this broker's topology the snapshot's: puts what is missing or changed, removes what the
 * snapshot lacks — of what `stale` names (default: everything held). A node that served clients
 * while the snapshot was on its way passes what it held before asking, so an object a client
 * created meanwhile is kept (the leader hears of it from this node's own mirror).
 */
export function followSnapshot(b: Broker, snapshot: readonly MirroredChange[], stale: ReadonlySet<string> | null = null): void {
  const wanted = new Map<string, MirroredChange>();
  for (const c of snapshot) wanted.set(identityOf(c.kind, c.record), c);
  const held = recordsOf(b);
  for (const kind of [...ORDER].reverse()) {
    for (const record of held.get(kind) ?? []) {
      const id = identityOf(kind, record);
      if (!wanted.has(id) && (stale === null || stale.has(id))) applyMirroredChange(b, { kind, op: "delete", record });
    }
  }
  for (const c of snapshot) applyMirroredChange(b, c);
}

/** The identity of every record this broker holds now (see identityOf). */
export function heldIdentities(b: Broker): Set<string> {
  const ids = new Set<string>();
  for (const [kind, records] of recordsOf(b)) for (const r of records) ids.add(identityOf(kind, r));
  return ids;
}

/**
 * What names a record among its kind: the fields a removal carries. A binding is named by all of
 * its terms (its arguments too: two bindings may differ only by them).
 */
export function identityOf(kind: DefinitionKind, r: MirroredRecord): string {
  const f = (k: string): string => String(r[k] ?? "");
  switch (kind) {
    case "users":
    case "vhosts":
    case "global_parameters":
      return `${kind}\0${f("name")}`;
    case "permissions":
      return `${kind}\0${f("vhost")}\0${f("user")}`;
    case "topic_permissions":
      return `${kind}\0${f("vhost")}\0${f("user")}\0${f("exchange")}`;
    case "parameters":
      return `${kind}\0${f("vhost")}\0${f("component")}\0${f("name")}`;
    case "bindings":
      return `${kind}\0${f("vhost")}\0${f("source")}\0${f("destination_type")}\0${f("destination")}\0${f("routing_key")}\0${JSON.stringify(r["arguments"] ?? {})}`;
    default:
      return `${kind}\0${f("vhost")}\0${f("name")}`;
  }
}

function recordsOf(b: Broker): Map<DefinitionKind, MirroredRecord[]> {
  const vhosts = [...b.vhosts.values()];
  const isOwn = (name: string): boolean => name !== "" && !name.startsWith("amq.");
  const asRecord = (x: object): MirroredRecord => x as MirroredRecord;
  return new Map<DefinitionKind, MirroredRecord[]>([
    ["vhosts", vhosts.map((v) => ({ name: v.name, ...v.metadata }))],
    ["users", b.users.list().filter((u) => u.isInternal).map(userDefinition)],
    ["permissions", b.users.allPermissions().map((p) => asRecord(p.toJSON()))],
    ["topic_permissions", b.users.allTopicPermissions().map((p) => asRecord(p.toJSON()))],
    ["policies", vhosts.flatMap((v) => [...v.policies.values()].map(asRecord))],
    ["operator_policies", vhosts.flatMap((v) => [...v.operatorPolicies.values()].map(asRecord))],
    ["parameters", vhosts.flatMap((v) => [...v.parameters].flatMap(([component, byName]) => [...byName].map(([name, value]) => ({ vhost: v.name, component, name, value }))))],
    ["global_parameters", [...b.globalParameters].map(([name, value]) => ({ name, value }))],
    ["exchanges", vhosts.flatMap((v) => [...v.exchanges.values()].filter((x) => isOwn(x.name)).map((x) => asRecord(exchangeDefinition(x))))],
    // Exclusive queues too, with their owner's node (queue-operations.ts, mirroredQueueRecord).
    ["queues", vhosts.flatMap((v) => [...v.queues.values()].map((q) => mirroredQueueRecord(b, q)))],
    ["bindings", vhosts.flatMap((v) => [...v.bindings()].map((x) => asRecord(bindingDefinition(x))))],
  ]);
}
