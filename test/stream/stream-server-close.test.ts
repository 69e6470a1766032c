// When the broker ends a stream connection, rabbitmq-stream-js-client sees what it sees with
// RabbitMQ (issue 48): a connection closed through the management API is just closed, without a
// Close frame, which the client cannot decode ("Unknown response 22" thrown in the user's
// process), and its connection_closed listeners run once. The client runs in a child process: an
// exception it throws there is what its user would see, and its own timers (heartbeats it keeps
// after its sockets are gone) cannot hold this test's process.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { TestBroker } from "../helpers/broker.js";
import { startStreamBroker } from "./stream-helpers.js";

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
});
