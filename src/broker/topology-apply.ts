/**
 * Applies a topology change made on another node (topology-mirror.ts) to this node's broker,
 * through the same broker methods a client's change goes through, so this node's rules and state
 * stay one. Three things differ from a client's change:
 * - nothing is announced (the event exchange and the audit trail heard it where it was made);
 * - no feature hears a parameter (a shovel runs on the node where it was set, not on every node);
 * - nothing is told to this node's own mirror (a change never travels back).
 *
 * Applying is idempotent, so a change that arrives twice, or one this node already made by a
 * cascade of its own (a queue's bindings going with it), changes nothing the second time: a put of
 * an existing exchange, queue or binding keeps it, a removal of something absent does nothing.
 */
import type { FieldTable } from "./values/field-value.js";
import type { HashingAlgorithm } from "../auth/password.js";
import type { Broker } from "./broker.js";
import { adminContext } from "./definitions.js";
import { SYSTEM_ACTOR } from "./events/actor.js";
import type { MirroredChange, MirroredRecord } from "./topology-mirror.js";
import type { PolicyRecord } from "./vhost.js";

/** Applies one change; a change that cannot apply (an unknown vhost, a refused value) throws its BrokerError. */
export function applyMirroredChange(broker: Broker, change: MirroredChange): void {
  const mirror = broker.mirror;
  broker.mirror = null;
  broker.parameterComponents.muted++;
  try {
    broker.events.silently(() => (change.op === "put" ? applyPut(broker, change.kind, change.record) : applyDelete(broker, change.kind, change.record)));
  } finally {
    broker.parameterComponents.muted--;
    broker.mirror = mirror;
  }
}

const text = (r: MirroredRecord, key: string): string => {
  const v = r[key];
  if (typeof v !== "string") throw new TypeError(`a mirrored record lacks '${key}'`);
  return v;
};
const table = (r: MirroredRecord, key: string): FieldTable => (r[key] ?? {}) as FieldTable;

function applyPut(b: Broker, kind: MirroredChange["kind"], r: MirroredRecord): void {
  const ctx = adminContext(b, SYSTEM_ACTOR);
  switch (kind) {
    case "vhosts":
      b.putVhost(text(r, "name"), {
        description: text(r, "description"),
        tags: r["tags"] as string[],
        defaultQueueType: text(r, "defaultQueueType"),
        tracing: r["tracing"] === true,
      });
      return;
    case "users":
      b.putUser(text(r, "name"), {
        // A user without a password has an empty hash, which putUser takes as "none given".
        ...(r["password_hash"] === "" ? {} : { passwordHash: text(r, "password_hash") }),
        hashingAlgorithm: text(r, "hashing_algorithm") as HashingAlgorithm,
        tags: r["tags"] as string[],
        limits: (r["limits"] ?? {}) as Record<string, number>,
      });
      return;
    case "permissions":
      b.setPermission(text(r, "user"), text(r, "vhost"), { configure: text(r, "configure"), write: text(r, "write"), read: text(r, "read") });
      return;
    case "topic_permissions":
      b.setTopicPermission(text(r, "user"), text(r, "vhost"), { exchange: text(r, "exchange"), write: text(r, "write"), read: text(r, "read") });
      return;
    case "policies":
      b.putPolicy(r as unknown as PolicyRecord);
      return;
    case "operator_policies":
      b.putOperatorPolicy(r as unknown as PolicyRecord);
      return;
    case "parameters":
      b.putParameter(text(r, "component"), text(r, "vhost"), text(r, "name"), r["value"]);
      return;
    case "global_parameters":
      b.putGlobalParameter(text(r, "name"), r["value"]);
      return;
    case "exchanges": {
      const spec = { name: text(r, "name"), type: text(r, "type"), durable: r["durable"] === true, autoDelete: r["auto_delete"] === true, internal: r["internal"] === true, arguments: table(r, "arguments") };
      if (!b.vhost(text(r, "vhost")).exchanges.has(spec.name)) b.declareExchange(ctx, text(r, "vhost"), spec, false);
      return;
    }
    case "queues": {
      const vhost = text(r, "vhost");
      const name = text(r, "name");
      const args = table(r, "arguments");
      const existing = b.vhost(vhost).queues.get(name);
      if (existing === undefined) {
        b.declareQueue(ctx, vhost, { name, durable: r["durable"] === true, autoDelete: r["auto_delete"] === true, exclusiveOwner: null, arguments: args }, false);
        return;
      }
      // The one change a queue's record takes after its declare: an MQTT 5 session's new expiry.
      const expires = args["x-expires"];
      if (typeof expires === "number" && existing.arguments["x-expires"] !== expires) b.changeQueueExpires(ctx, vhost, name, expires);
      return;
    }
    case "bindings": {
      const vhost = text(r, "vhost");
      if (text(r, "destination_type") === "queue") b.bindQueue(ctx, vhost, text(r, "destination"), text(r, "source"), text(r, "routing_key"), table(r, "arguments"));
      else b.bindExchange(ctx, vhost, text(r, "destination"), text(r, "source"), text(r, "routing_key"), table(r, "arguments"));
      return;
    }
  }
}

function applyDelete(b: Broker, kind: MirroredChange["kind"], r: MirroredRecord): void {
  const ctx = adminContext(b, SYSTEM_ACTOR);
  switch (kind) {
    case "vhosts":
      if (b.vhosts.has(text(r, "name"))) b.deleteVhost(text(r, "name"));
      return;
    case "users":
      if (b.users.get(text(r, "name"))) b.deleteUser(text(r, "name"));
      return;
    case "permissions":
      if (b.users.permission(text(r, "user"), text(r, "vhost"))) b.clearPermission(text(r, "user"), text(r, "vhost"));
      return;
    case "topic_permissions":
      if (b.users.topicPermission(text(r, "user"), text(r, "vhost"), text(r, "exchange"))) b.clearTopicPermissions(text(r, "user"), text(r, "vhost"), text(r, "exchange"));
      return;
    case "policies":
      if (b.vhosts.get(text(r, "vhost"))?.policies.has(text(r, "name"))) b.deletePolicy(text(r, "vhost"), text(r, "name"));
      return;
    case "operator_policies":
      if (b.vhosts.get(text(r, "vhost"))?.operatorPolicies.has(text(r, "name"))) b.deleteOperatorPolicy(text(r, "vhost"), text(r, "name"));
      return;
    case "parameters":
      if (b.vhosts.get(text(r, "vhost"))?.parameters.get(text(r, "component"))?.has(text(r, "name"))) b.deleteParameter(text(r, "component"), text(r, "vhost"), text(r, "name"));
      return;
    case "global_parameters":
      if (b.globalParameters.has(text(r, "name"))) b.deleteGlobalParameter(text(r, "name"));
      return;
    case "exchanges":
      if (b.vhosts.has(text(r, "vhost"))) b.deleteExchange(ctx, text(r, "vhost"), text(r, "name"), false);
      return;
    case "queues":
      // A queue held here as a RemoteQueue is already gone on its leader (the change comes from there, or from the node that asked it): only forgotten here.
      if (b.vhosts.has(text(r, "vhost")) && !b.forgetQueueLedElsewhere(text(r, "vhost"), text(r, "name"))) b.deleteQueue(ctx, text(r, "vhost"), text(r, "name"), { ifUnused: false, ifEmpty: false });
      return;
    case "bindings": {
      const v = b.vhosts.get(text(r, "vhost"));
      const ends = v && v.exchanges.has(text(r, "source")) && (text(r, "destination_type") === "queue" ? v.queues : v.exchanges).has(text(r, "destination"));
      if (!ends) return;
      if (text(r, "destination_type") === "queue") b.unbindQueue(ctx, v.name, text(r, "destination"), text(r, "source"), text(r, "routing_key"), table(r, "arguments"));
      else b.unbindExchange(ctx, v.name, text(r, "destination"), text(r, "source"), text(r, "routing_key"), table(r, "arguments"));
      return;
    }
  }
}
