// The IPC messages of `coney --workers N` (src/workers/ipc-endpoint.ts, ipc-hub.ts): send, broadcast and
// request/response through the primary's hub, with ids, timeouts, and failures when a worker is gone.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IpcEndpoint, PRIMARY, type Envelope } from "../../src/workers/ipc-endpoint.js";
import { IpcHub } from "../../src/workers/ipc-hub.js";

/** A hub with two workers whose channels deliver asynchronously, as a real IPC channel does. */
function layout(): { hub: IpcHub; w0: IpcEndpoint; w1: IpcEndpoint } {
  const hub = new IpcHub();
  const w0 = new IpcEndpoint("w0", (e) => setImmediate(() => hub.route(e)));
  const w1 = new IpcEndpoint("w1", (e) => setImmediate(() => hub.route(e)));
  hub.attach("w0", (e: Envelope) => setImmediate(() => w0.receive(e)));
  hub.attach("w1", (e: Envelope) => setImmediate(() => w1.receive(e)));
  // Both listen from the start (a real worker's first envelope says so: heard()).
  hub.heard("w0");
  hub.heard("w1");
  return { hub, w0, w1 };
}

describe("IPC between the primary and workers", () => {
  it("answers requests by id, from the primary and from another worker through the hub", async () => {
    const { hub, w0, w1 } = layout();
    w1.handle("figures", (body, from) => ({ asked: body, from }));
    hub.endpoint.handle("nodes", async (_b, from) => `nodes for ${from}`);
    const [a, b, c] = await Promise.all([w0.request("w1", "figures", 1, 1000), hub.endpoint.request("w1", "figures", 2, 1000), w0.request(PRIMARY, "nodes", null, 1000)]);
    assert.deepEqual(a, { asked: 1, from: "w0" });
    assert.deepEqual(b, { asked: 2, from: "primary" });
    assert.equal(c, "nodes for w0");
  });

  it("broadcasts to every other process, the primary included", async () => {
    const { hub, w0, w1 } = layout();
    const got: string[] = [];
    const all = new Promise<void>((resolve) => {
      const note = (who: string) => () => {
        got.push(who);
        if (got.length === 2) resolve();
      };
      hub.endpoint.handle("defs", note("primary"));
      w1.handle("defs", note("w1"));
      w0.handle("defs", () => assert.fail("the sender does not hear itself"));
    });
    w0.broadcast("defs", { rev: 1 });
    await all;
    assert.deepEqual(got.sort(), ["primary", "w1"]);
  });

  it("fails a request with the handler's error, with no handler, to a worker not running, and after its timeout", async () => {
    const { hub, w0, w1 } = layout();
    w1.handle("boom", () => {
      throw new Error("it broke");
    });
    w1.handle("slow", () => new Promise(() => {}));
    await assert.rejects(w0.request("w1", "boom", null, 1000), /it broke/);
    await assert.rejects(w0.request("w1", "nothing", null, 1000), /w1 has no handler for nothing/);
    await assert.rejects(w0.request("w7", "figures", null, 1000), /w7 is not running/);
    await assert.rejects(w0.request("w1", "slow", null, 50), /slow to w1: no answer within 50 ms/);
    const pending = hub.endpoint.request("w1", "slow", null, 10_000);
    hub.detach("w1");
    await assert.rejects(pending, /w1 is not running/, "a worker's exit fails the primary's requests to it at once");
  });

  it("holds what comes for a worker until it has spoken (Node drops a message a process does not listen for yet), then delivers it in order", async () => {
    const hub = new IpcHub();
    const w0 = new IpcEndpoint("w0", (e) => setImmediate(() => hub.route(e)));
    hub.attach("w0", (e: Envelope) => setImmediate(() => w0.receive(e)));
    let w1: IpcEndpoint | null = null;
    const early: Envelope[] = [];
    // w1 is still loading its code: what reaches it now would be lost.
    hub.attach("w1", (e: Envelope) => setImmediate(() => (w1 === null ? early.push(e) : w1.receive(e))));
    hub.heard("w0");
    const seen: number[] = [];
    const answered = w0.request("w1", "snapshot", null, 2000);
    w0.send("w1", "note", 1);
    w0.broadcast("note", 2);
    await new Promise((r) => setTimeout(r, 20));
    w1 = new IpcEndpoint("w1", (e) => setImmediate(() => hub.route(e)));
    w1.handle("snapshot", () => "the snapshot");
    w1.handle("note", (n) => void seen.push(n as number));
    w1.send(PRIMARY, "start");
    assert.equal(await answered, "the snapshot");
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(seen, [1, 2]);
    assert.deepEqual(early, [], "nothing was handed to it before it spoke");
  });

  it("a worker that exits before it spoke fails the requests that waited for it", async () => {
    const hub = new IpcHub();
    const w0 = new IpcEndpoint("w0", (e) => setImmediate(() => hub.route(e)));
    hub.attach("w0", (e: Envelope) => setImmediate(() => w0.receive(e)));
    hub.attach("w1", () => assert.fail("w1 never spoke"));
    hub.heard("w0");
    const pending = w0.request("w1", "snapshot", null, 10_000);
    await new Promise((r) => setTimeout(r, 10));
    hub.detach("w1");
    await assert.rejects(pending, /w1 is not running/);
  });

  it("a closed endpoint fails what waits and sends nothing more", async () => {
    const { w0 } = layout();
    const pending = w0.request(PRIMARY, "never-answered", null, 10_000);
    w0.close("the primary is gone");
    await assert.rejects(pending, /the primary is gone/);
    await assert.rejects(w0.request(PRIMARY, "x", null, 10), /the IPC channel is closed/);
  });
});
