// When the broker ends a stream connection, rabbitmq-stream-js-client sees what it sees with
// RabbitMQ (issue 48): a connection closed through the management API is just closed, without a
// Close frame, which the client cannot decode ("Unknown response 22" thrown in the user's
// process), and its connection_closed listeners run once. The client runs in a child process: an
// exception it throws there is what its user would see, and its own timers (heartbeats it keeps
// after its sockets are gone) cannot hold this test's process.
//
// A client's own Close is answered as RabbitMQ 3.10.8's reader answers it (checked against it on
// this machine): every Close in the read that held the first gets its response (the client sends
// Close twice when a stream it used is deleted while it closes, and waits for each answer), then
// the socket closes; nothing else after the Close is acted on, and a Close in a later read finds
// the socket gone.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { TestBroker } from "../helpers/broker.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { RawStreamClient } from "./raw-stream-client.js";
import { startStreamBroker } from "./stream-helpers.js";

const closeRequest = (corr: number): Buffer => new FrameWriter(0x16).u32(corr).u16(1).str("OK").frame();

/** The correlation ids and codes of the Close responses a client was sent. */
function closeAnswers(c: RawStreamClient): [number, number][] {
  return c.take(0x8016).map((f) => [f.body.u32(), f.body.u16()]);
}

/** The child's script: connect, publish and consume, close every connection through the API, report. */
function closedByApiScript(streamPort: number, httpUrl: string): string {
  return `
    import { connect, Offset } from "rabbitmq-stream-js-client";
    const uncaught = [];
    process.on("uncaughtException", (e) => uncaught.push(String(e)));
    process.on("unhandledRejection", (e) => uncaught.push(String(e)));
    const calls = { client: 0, publisher: 0, consumer: 0 };
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const auth = { authorization: "Basic " + Buffer.from("guest:guest").toString("base64") };
    const api = (method, path) => fetch(${JSON.stringify(httpUrl)} + path, { method, headers: auth });
    const report = () => { console.log(JSON.stringify({ calls, uncaught })); process.exit(0); };
    setTimeout(report, 8000);
    const client = await connect({ hostname: "127.0.0.1", port: ${streamPort}, username: "guest", password: "guest", vhost: "/", heartbeat: 0, listeners: { connection_closed: () => calls.client++ } }, quiet);
    await client.createStream({ stream: "closed-by-api" });
    await client.declarePublisher({ stream: "closed-by-api", connectionClosedListener: () => calls.publisher++ });
    await client.declareConsumer({ stream: "closed-by-api", offset: Offset.first(), connectionClosedListener: () => calls.consumer++ }, () => undefined);
    for (const c of await (await api("GET", "/api/connections")).json()) await api("DELETE", "/api/connections/" + encodeURIComponent(c.name));
    // Each listener has run once it will; a second call or a late exception would show in the next second.
    const deadline = Date.now() + 5000;
    while ((calls.client < 1 || calls.publisher < 1 || calls.consumer < 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    setTimeout(report, 1000);`;
}

describe("stream connections the broker ends", () => {
  let b: TestBroker & { streamPort: number };
  before(async () => {
    b = await startStreamBroker();
  });
  after(async () => {
    await b?.close();
  });

  it("closes a connection from the management API without a Close frame: no exception in the client's process, each closed listener once", async () => {
    // Asynchronously: the broker answering it runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", closedByApiScript(b.streamPort, b.httpUrl)], { encoding: "utf8" });
    const { calls, uncaught } = JSON.parse(stdout.trim()) as { calls: Record<string, number>; uncaught: string[] };
    assert.deepEqual(uncaught, []);
    assert.deepEqual(calls, { client: 1, publisher: 1, consumer: 1 });
    assert.equal([...b.broker.connections.list()].length, 0);
  });

  it("answers every Close in the read that held the client's first, then closes the socket; acts on nothing else after it", async () => {
    const c = await RawStreamClient.login(b.streamPort);
    const create = new FrameWriter(0x0d).u32(300).str("after-close").u32(0).frame();
    c.send(Buffer.concat([closeRequest(201), create, closeRequest(202)]));
    await c.whenClosed();
    assert.deepEqual(closeAnswers(c), [
      [201, 1],
      [202, 1],
    ]);
    assert.deepEqual(c.take(0x800d), [], "no Create after the Close was answered");
    assert.equal(b.broker.vhosts.get("/")!.queues.get("after-close"), undefined);
  });

  it("does not answer a Close sent after the first was answered: the socket is gone", async () => {
    const c = await RawStreamClient.login(b.streamPort);
    c.send(closeRequest(201));
    await c.next(0x8016);
    c.send(closeRequest(202));
    await c.whenClosed();
    assert.deepEqual(closeAnswers(c), []);
  });
});
