// A joining spread node's snapshot without the exclusive queues of nodes that are gone
// (spread-definitions.ts withLiveOwners): their queues and the bindings to them are left out,
// live members' exclusive queues and every other record are kept, in order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withLiveOwners } from "../../src/cluster/spread-definitions.js";
import type { MirroredChange } from "../../src/broker/index.js";

const queue = (name: string, owner?: string): MirroredChange => ({ kind: "queues", op: "put", record: { vhost: "/", name, durable: false, auto_delete: false, arguments: {}, ...(owner ? { exclusive: true, owner_node: owner } : {}) } });
const binding = (destination: string): MirroredChange => ({ kind: "bindings", op: "put", record: { vhost: "/", source: "amq.direct", destination, destination_type: "queue", routing_key: destination, arguments: {} } });

describe("withLiveOwners", () => {
  it("drops a gone node's exclusive queues and their bindings, keeps the rest in order", () => {
    const changes = [queue("plain"), queue("amq.gen-dead", "n3@x"), queue("amq.gen-live", "n1@x"), binding("amq.gen-dead"), binding("amq.gen-live"), binding("plain")];
    assert.deepEqual(withLiveOwners(changes, ["n1@x", "n2@x"]), [changes[0], changes[2], changes[4], changes[5]]);
  });
  it("keeps everything when every owner is a member", () => {
    const changes = [queue("amq.gen-a", "n1@x"), binding("amq.gen-a")];
    assert.deepEqual(withLiveOwners(changes, ["n1@x"]), changes);
  });
});
