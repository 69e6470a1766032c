// rabbitmq_stream_management's lists under `coney --workers 2` (found running rabbitmq-stream-js-client's
// own e2e suite against the workers: its "declaring a consumer on an existing stream with
// identifiers" read /api/stream/consumers/%2F/ and found [] when the answer came from the other
// worker): a stream client's connection lives in the worker that accepted it, and the plugin's
// lists — connections, publishers, consumers — answer the whole broker from either worker, as
// /api/connections does. Real process tree, real client.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, Offset, type Client } from "rabbitmq-stream-js-client";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, workerOf, type WorkersProcess } from "./workers-harness.js";
import { freshGet } from "./worker-landing.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { silentStreamLog } from "../stream/killed-stream-client.js";

function ledBy(w: number, prefix: string): string {
  for (let i = 0; ; i++) if (queueGroupOf("/", `${prefix}-${i}`, 2) === w) return `${prefix}-${i}`;
}

interface StreamRecord {
  readonly queue?: { readonly name: string; readonly vhost: string };
  readonly connection_details?: { readonly node: string };
  readonly reference?: string;
  readonly properties?: { readonly identifier?: string };
  readonly node?: string;
  readonly vhost?: string;
}

describe("rabbitmq_stream_management's lists from either worker of coney --workers 2", () => {
  let p: WorkersProcess;
  const clients: Client[] = [];
  const streams = [ledBy(0, "lists-w0"), ledBy(1, "lists-w1")];

  /** `path` on four new TCP connections in a row: the primary hands them to both workers. */
  const fourAnswers = async (path: string): Promise<StreamRecord[][]> => {
    const out: StreamRecord[][] = [];
    for (let i = 0; i < 4; i++) out.push((await freshGet(p.httpPort, path)) as StreamRecord[]);
    return out;
  };

  before(async () => {
    p = await startWorkers(["--stream-advertised-host", "127.0.0.1"]);
    const started = p.lines.find((l) => l.msg === "Coney started")!;
    const c = await connect({ hostname: "127.0.0.1", port: started["stream_port"] as number, username: "guest", password: "guest", vhost: "/", heartbeat: 0 }, silentStreamLog);
    clients.push(c);
    // One publisher and one consumer on each stream: the client connects them to each leader's own port (Metadata), one per worker.
    for (const s of streams) {
      await c.createStream({ stream: s, arguments: {} });
      await c.declarePublisher({ stream: s, publisherRef: `ref-${s}` });
      await c.declareConsumer({ stream: s, offset: Offset.first(), consumerTag: `tag-${s}` }, () => {});
    }
  });
  after(async () => {
    await Promise.all(clients.map((c) => withTimeout(c.close(), 2000, "a stream client's close").catch(() => {})));
    await p.close();
  });

  it("lists every worker's stream consumers (with their identifiers) from either worker", async () => {
    const want = streams.map((s) => `tag-${s}`).sort();
    await eventually(async () => (await fourAnswers("/api/stream/consumers/%2F")).every((list) => list.length === 2), 10_000, "both consumers listed in four answers in a row");
    for (const list of await fourAnswers("/api/stream/consumers/%2F")) {
      assert.deepEqual(list.map((r) => r.properties?.identifier).sort(), want);
      // Each names the worker its connection lives in: the stream's leader.
      assert.deepEqual(list.map((r) => [r.queue?.name, workerOf(r.connection_details?.node ?? "")]).sort(), [[streams[0], "w0"], [streams[1], "w1"]]);
    }
    for (const list of await fourAnswers("/api/stream/consumers")) assert.equal(list.length, 2);
  });

  it("lists every worker's stream publishers, also by stream, and the stream connections, from either worker", async () => {
    for (const list of await fourAnswers("/api/stream/publishers/%2F")) assert.deepEqual(list.map((r) => r.reference).sort(), streams.map((s) => `ref-${s}`).sort());
    for (const s of streams) for (const list of await fourAnswers(`/api/stream/publishers/%2F/${s}`)) assert.deepEqual(list.map((r) => r.reference), [`ref-${s}`]);
    // The locator connection (either worker), and a publisher and a consumer connection the client opened on each leader's own port.
    for (const list of await fourAnswers("/api/stream/connections/%2F")) {
      assert.equal(list.length, 5, JSON.stringify(list.map((r) => r.node)));
      assert.deepEqual(new Set(list.map((r) => workerOf(r.node ?? ""))), new Set(["w0", "w1"]));
    }
  });
});
