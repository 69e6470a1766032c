// The rules of etcd's order on a spread node (src/cluster/spread-order.ts; docs/CLUSTERING.md,
// "Concurrent changes: etcd's order on every node"), on a real broker: this node's changes are
// pending until its batch comes back; another node's batch ordered before them is applied around
// them; a pending change that lost is refused with RabbitMQ's error.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applyMirroredChange, Broker, MirrorOutbox, type MirroredChange, type MirroredRecord } from "../../src/broker/index.js";
import { adminContext } from "../../src/broker/definitions.js";
import { SYSTEM_ACTOR } from "../../src/broker/events/actor.js";
import { OwnChanges, type ApplyHooks } from "../../src/cluster/spread-order.js";
import { createLogger } from "../../src/logging/logger.js";

/** A broker whose own changes are told to `own` (as SpreadClaims tells them); `flush` sends them as one batch. */
function node(): { broker: Broker; own: OwnChanges; hooks: ApplyHooks; flush(): number; told: MirroredRecord[] } {
  const broker = new Broker();
  broker.putVhost("/", {});
  const own = new OwnChanges(createLogger("silent"));
  let seq = 0;
  const outbox = new MirrorOutbox((batch) => (seq = own.sent(batch)));
  const told: MirroredRecord[] = [];
  broker.mirror = {
    put: (kind, record) => {
      outbox.put(kind, record);
      own.told(record);
      told.push(record);
    },
    delete: (kind, record) => outbox.delete(kind, record),
  };
  const hooks: ApplyHooks = {
    others: (c) => {
      try {
        applyMirroredChange(broker, c);
      } catch {
        // The applier's refusal: the change does not apply here either.
      }
    },
    own: (c) => applyMirroredChange(broker, c),
    queuePut: () => undefined,
  };
  return {
    broker,
    own,
    hooks,
    told,
    flush: () => {
      outbox.flush();
      return seq;
    },
  };
}

const policy = (n: number): MirroredChange => ({ kind: "policies", op: "put", record: { vhost: "/", name: "p", pattern: "^x", applyTo: "queues", definition: { "max-length": n }, priority: 0 } });
const ctx = (b: Broker) => adminContext(b, SYSTEM_ACTOR);

describe("spread order: another node's batch around this node's pending changes", () => {
  it("applies another node's change at once when nothing of this node waits (one node changing)", () => {
    const n = node();
    assert.equal(n.own.idle, true);
    n.own.applyOthers(n.broker, [policy(7)], n.hooks);
    assert.deepEqual(n.broker.vhost("/").policies.get("p")?.definition, { "max-length": 7 });
  });

  it("a policy: an earlier change of another node is skipped while this node's is pending; a later one wins", () => {
    const n = node();
    applyMirroredChange(n.broker, policy(1));
    n.broker.mirror!.put("policies", policy(1).record);
    const seq = n.flush();
    assert.equal(n.own.idle, false);
    n.own.applyOthers(n.broker, [policy(2)], n.hooks);
    assert.deepEqual(n.broker.vhost("/").policies.get("p")?.definition, { "max-length": 1 }, "this node's pending change is later in etcd's order");
    n.own.seen(seq);
    assert.equal(n.own.idle, true);
    n.own.applyOthers(n.broker, [policy(3)], n.hooks);
    assert.deepEqual(n.broker.vhost("/").policies.get("p")?.definition, { "max-length": 3 }, "a change ordered after this node's wins");
  });

  it("an exchange declared first elsewhere with another type stands here, and this node's declare is refused (406)", () => {
    const n = node();
    n.broker.declareExchange(ctx(n.broker), "/", { name: "x", type: "direct", durable: true, autoDelete: false, internal: false, arguments: {} }, false);
    n.flush();
    const mine = n.own.take();
    n.own.applyOthers(n.broker, [{ kind: "exchanges", op: "put", record: { vhost: "/", name: "x", type: "fanout", durable: true, auto_delete: false, internal: false, arguments: {} } }], n.hooks);
    assert.equal(n.broker.vhost("/").exchanges.get("x")?.type, "fanout");
    const refusal = n.own.refusalOf(mine);
    assert.equal(refusal?.kind, "preconditionFailed");
    assert.equal(refusal?.message, "inequivalent arg 'type' for exchange 'x' in vhost '/': received 'direct' but current is 'fanout'");
  });

  it("an equivalent declare elsewhere refuses nothing", () => {
    const n = node();
    n.broker.declareExchange(ctx(n.broker), "/", { name: "x", type: "topic", durable: true, autoDelete: false, internal: false, arguments: {} }, false);
    n.flush();
    const mine = n.own.take();
    n.own.applyOthers(n.broker, [{ kind: "exchanges", op: "put", record: { vhost: "/", name: "x", type: "topic", durable: true, auto_delete: false, internal: false, arguments: {} } }], n.hooks);
    assert.equal(n.own.refusalOf(mine), null);
  });

  it("a binding whose exchange another node deleted first is gone here too, and refused (404)", () => {
    const n = node();
    const c = ctx(n.broker);
    n.broker.declareExchange(c, "/", { name: "e", type: "direct", durable: true, autoDelete: false, internal: false, arguments: {} }, false);
    n.broker.declareQueue(c, "/", { name: "q", durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    n.own.seen(n.flush());
    n.own.take();
    n.broker.bindQueue(c, "/", "q", "e", "k", {});
    n.flush();
    const mine = n.own.take();
    n.own.applyOthers(n.broker, [{ kind: "exchanges", op: "delete", record: { vhost: "/", name: "e" } }], n.hooks);
    assert.equal(n.broker.vhost("/").exchanges.has("e"), false);
    assert.equal([...n.broker.vhost("/").bindings()].filter((b) => b.destination.name === "q" && b.source.name === "e").length, 0);
    const refusal = n.own.refusalOf(mine);
    assert.equal(refusal?.kind, "notFound");
    assert.equal(refusal?.message, "no exchange 'e' in vhost '/'");
  });

  it("this node's pending delete removes what another node's earlier put made", () => {
    const n = node();
    applyMirroredChange(n.broker, policy(1));
    n.broker.deletePolicy("/", "p");
    n.flush();
    assert.equal(n.own.idle, false);
    n.own.applyOthers(n.broker, [policy(5)], n.hooks);
    assert.equal(n.broker.vhost("/").policies.has("p"), false);
  });
});
