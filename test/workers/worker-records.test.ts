// The IPC pieces behind "operators see one broker" (src/workers/worker-records.ts,
// worker-client-ids.ts, src/mqtt/client-id-peers.ts), in one process through the primary's hub:
// a gathered list keeps every answer that came in time and leaves out a worker that is down,
// failing or silent; a client-id claim reaches every other worker; claims are strictly ordered.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IpcEndpoint, type Envelope } from "../../src/workers/ipc-endpoint.js";
import { IpcHub } from "../../src/workers/ipc-hub.js";
import { WorkerRecords } from "../../src/workers/worker-records.js";
import { WorkerClientIds } from "../../src/workers/worker-client-ids.js";
import { supersedes, type ClientIdClaim } from "../../src/mqtt/client-id-peers.js";

function layout(n: number): { hub: IpcHub; workers: IpcEndpoint[] } {
  const hub = new IpcHub();
  const workers = Array.from({ length: n }, (_, i) => {
    const w = new IpcEndpoint(`w${i}`, (e) => setImmediate(() => hub.route(e)));
    hub.attach(`w${i}`, (e: Envelope) => setImmediate(() => w.receive(e)));
    hub.heard(`w${i}`); // listening from the start, as a real worker once it spoke
    return w;
  });
  return { hub, workers };
}

describe("records gathered from the other workers", () => {
  it("keeps the answers in time and leaves out a silent, a failing and a stopped worker", async () => {
    const { hub, workers } = layout(5);
    const all = workers.map((w) => new WorkerRecords(w, ["w0", "w1", "w2", "w3", "w4"].filter((x) => x !== w.self), 200));
    all[1]!.serve(() => [{ name: "c1", node: "w1" }]);
    all[2]!.serve(() => new Promise(() => {})); // never answers
    all[3]!.serve(() => {
      throw new Error("broken");
    });
    // w4's API is not running: it answers with an error. And then its process is gone.
    hub.detach("w4");
    const started = Date.now();
    const answers = await all[0]!.gather({ kind: "connections", user: null });
    assert.deepEqual(answers, [[{ name: "c1", node: "w1" }]]);
    assert.ok(Date.now() - started < 2000, "the timeout bounds the wait");
  });

  it("asks with the query it was given", async () => {
    const { workers } = layout(2);
    const [a, b] = workers.map((w) => new WorkerRecords(w, [w.self === "w0" ? "w1" : "w0"]));
    b!.serve((q) => q);
    assert.deepEqual(await a!.gather({ kind: "close", name: "x", reason: "r" }), [{ kind: "close", name: "x", reason: "r" }]);
  });
});

describe("MQTT client-id claims across workers", () => {
  it("reaches every other worker, not the claiming one", async () => {
    const { workers } = layout(3);
    const ids = workers.map((w) => new WorkerClientIds(w, workers.filter((o) => o !== w).map((o) => o.self)));
    const heard: string[] = [];
    const claim: ClientIdClaim = { vhost: "/", clientId: "c", at: 1, node: "n-w0" };
    const both = new Promise<void>((resolve) => {
      ids.forEach((x, i) => x.onClaimed((c) => {
        assert.deepEqual(c, claim);
        heard.push(`w${i}`);
        if (heard.length === 2) resolve();
      }));
    });
    ids[0]!.claimed(claim);
    await both;
    assert.deepEqual(heard.sort(), ["w1", "w2"]);
  });

  it("takeOver resolves once every other worker ran its handler, and not before", async () => {
    const { workers } = layout(3);
    const ids = workers.map((w) => new WorkerClientIds(w, workers.filter((o) => o !== w).map((o) => o.self)));
    const handled: string[] = [];
    ids.forEach((x, i) => x.onClaimed(() => void handled.push(`w${i}`)));
    const claim: ClientIdClaim = { vhost: "/", clientId: "c", at: 1, node: "n-w2" };
    await ids[2]!.takeOver(claim);
    assert.deepEqual(handled.sort(), ["w0", "w1"]);
  });

  it("orders two claims strictly: the later, or at the same time the greater node name", () => {
    const a: ClientIdClaim = { vhost: "/", clientId: "c", at: 10, node: "n-w0" };
    const b: ClientIdClaim = { ...a, at: 11 };
    const c: ClientIdClaim = { ...a, node: "n-w1" };
    assert.equal(supersedes(b, a), true);
    assert.equal(supersedes(a, b), false);
    assert.equal(supersedes(c, a), true);
    assert.equal(supersedes(a, c), false);
    assert.equal(supersedes(a, a), false);
  });
});
