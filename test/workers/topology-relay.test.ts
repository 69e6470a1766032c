// The workers of `coney --workers N` follow each other's topology over the IPC channels
// (src/workers/topology-relay.ts). Here the workers are real brokers in this process, each with
// its own IPC endpoint, and the primary's hub (src/workers/ipc-hub.ts) routes between them; every
// envelope crosses as JSON on a later turn, as node:cluster's channel carries it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { IpcEndpoint, type Envelope } from "../../src/workers/ipc-endpoint.js";
import { IpcHub } from "../../src/workers/ipc-hub.js";
import { TopologyRelay } from "../../src/workers/topology-relay.js";

const hop = (e: Envelope, to: (e: Envelope) => void): void => {
  const wire = JSON.stringify(e);
  setImmediate(() => to(JSON.parse(wire) as Envelope));
};

interface Worker {
  readonly name: string;
  readonly broker: TestBroker;
  readonly relay: TopologyRelay;
  readonly failures: unknown[];
}

describe("workers follow each other's topology over IPC", () => {
  const hub = new IpcHub();
  const workers: Worker[] = [];
  const names = ["w0", "w1", "w2"];

  async function startWorker(name: string, prepare?: (b: TestBroker) => Promise<void>): Promise<Worker> {
    const broker = await startTestBroker();
    await prepare?.(broker);
    const endpoint = new IpcEndpoint(name, (e) => hop(e, (x) => hub.route(x)));
    hub.attach(name, (e) => hop(e, (x) => endpoint.receive(x)));
    hub.heard(name); // listening from the start, as a real worker once it spoke
    const failures: unknown[] = [];
    const relay = new TopologyRelay(broker.broker, endpoint, { peers: names.filter((n) => n !== name), onApplyError: (err) => failures.push(err) });
    const w = { name, broker, relay, failures };
    workers.push(w);
    return w;
  }

  async function stopWorker(w: Worker): Promise<void> {
    hub.detach(w.name);
    workers.splice(workers.indexOf(w), 1);
    await w.broker.close();
  }

  const queueOn = async (w: Worker, q: string): Promise<number> => (await apiClient(() => w.broker.httpUrl)("GET", `/api/queues/%2F/${q}`)).status;

  let w0: Worker;
  let w1: Worker;
  before(async () => {
    w0 = await startWorker("w0");
    w1 = await startWorker("w1");
    // Both start together: neither has a peer to copy yet.
    assert.deepEqual(await Promise.all([w0.relay.join(), w1.relay.join()]), [false, false]);
  });
  after(async () => {
    for (const w of [...workers]) await stopWorker(w);
  });

  it("a change made on either worker reaches the other", async () => {
    const c0 = await amqp.connect(w0.broker.amqpUrl);
    const c1 = await amqp.connect(w1.broker.amqpUrl);
    const ch0 = await c0.createChannel();
    const ch1 = await c1.createChannel();
    await ch0.assertQueue("r.from-w0", { durable: false });
    await ch1.assertExchange("r.x-from-w1", "direct", { durable: false });
    await ch1.bindQueue("r.from-w0", "r.x-from-w1", "k");
    await eventually(async () => (await queueOn(w1, "r.from-w0")) === 200, 5000, "w0's queue on w1");
    await eventually(async () => ((await apiClient(() => w0.broker.httpUrl)("GET", "/api/exchanges/%2F/r.x-from-w1/bindings/source")).json as unknown[] | undefined)?.length === 1, 5000, "w1's binding on w0");
    await c0.close();
    await c1.close();
  });

  it("a worker that starts later takes the topology of one that runs, transient objects and deletions included", async () => {
    const c0 = await amqp.connect(w0.broker.amqpUrl);
    const ch0 = await c0.createChannel();
    await ch0.assertQueue("r.transient", { durable: false, arguments: { "x-max-length": 3 } });
    await c0.close();
    await eventually(async () => (await queueOn(w1, "r.transient")) === 200, 5000, "r.transient on w1");
    const w2 = await startWorker("w2", async (b) => {
      // What the late worker held from before (its own file, say) and the others deleted since.
      const c = await amqp.connect(b.amqpUrl);
      await (await c.createChannel()).assertQueue("r.deleted-meanwhile", { durable: true });
      await c.close();
    });
    assert.equal(await w2.relay.join(), true);
    assert.equal(await queueOn(w2, "r.transient"), 200);
    assert.equal(await queueOn(w2, "r.from-w0"), 200);
    assert.equal(await queueOn(w2, "r.deleted-meanwhile"), 404);
    // And from now on it follows live, both ways.
    const c2 = await amqp.connect(w2.broker.amqpUrl);
    await (await c2.createChannel()).deleteQueue("r.transient");
    await c2.close();
    await eventually(async () => (await queueOn(w0, "r.transient")) === 404 && (await queueOn(w1, "r.transient")) === 404, 5000, "r.transient deleted everywhere");
  });

  it("applies every change without a failure", () => {
    for (const w of workers) assert.deepEqual(w.failures, [], w.name);
  });
});
