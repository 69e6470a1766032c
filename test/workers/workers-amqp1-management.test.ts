// RabbitMQ 4's `/management` node (HTTP over AMQP 1.0) under real `coney --workers 2`: the rhea
// connection sits on the worker that does NOT lead the queue, so get-with-counts, purge and delete
// are round trips to the leader (remote-queue-operations.ts) — and the responses still go out in
// request order on the link pair when a remote operation is followed at once by a local one.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import type { Connection, EventContext } from "rhea";
import { close as closeAmqp1, connect as connectAmqp1 } from "../helpers/rhea-client.js";
import { openManagement, type ManagementClient } from "../helpers/amqp1-management.js";
import { eventually } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { leaderIndex, onWorker, pinnedApis, type PinnedApi } from "./pinned-workers.js";

/** A name like `prefix-n` that worker `w` leads. */
function nameLedBy(prefix: string, w: number): string {
  for (let i = 0; ; i++) if (leaderIndex(`${prefix}-${i}`) === w) return `${prefix}-${i}`;
}

type Info = Record<string, unknown>;

describe("coney --workers 2: the AMQP 1.0 /management node on a queue led by the other worker", () => {
  let p: WorkersProcess;
  let apis: PinnedApi[];
  let rc: Connection;
  let m: ManagementClient;
  let ac: ChannelModel;

  before(async () => {
    p = await startWorkers();
    apis = await pinnedApis(p.httpPort);
    // The management connection on worker 0; the queues below are led by worker 1.
    rc = await onWorker(apis, 0, () => connectAmqp1(p.amqpPort, { hostname: "vhost:/" }), (x: Connection) => (x as unknown as { socket: { localPort: number } }).socket.localPort, (x) => closeAmqp1(x));
    m = await openManagement(rc);
    ac = await amqp.connect(p.amqpUrl);
  });
  after(async () => {
    await ac?.close().catch(() => {});
    if (rc !== undefined) await closeAmqp1(rc).catch(() => {});
    for (const a of apis ?? []) a.close();
    await p.close();
  });

  /** Publishes `n` persistent messages to `name` with confirms (from whichever worker amqplib landed on). */
  async function publish(name: string, n: number): Promise<void> {
    const ch = await ac.createConfirmChannel();
    for (let i = 0; i < n; i++) ch.sendToQueue(name, Buffer.from(`m${i}`), { persistent: true });
    await ch.waitForConfirms();
    await ch.close();
  }
  const onLeader = (name: string): Promise<{ status: number; json: unknown }> => apis[1]!.request("GET", `/api/queues/%2F/${name}`);

  it("declare, get info with the leader's counts, purge and delete a queue the other worker leads", async () => {
    const q = nameLedBy("mgmt-remote", 1);
    const created = await m.request("PUT", `/queues/${q}`, { durable: true, arguments: { "x-queue-type": "classic" } });
    assert.equal(created.status, "201", String(created.body));
    assert.equal((created.body as Info)["leader"], apis[1]!.node, "led by the other worker");
    assert.equal((await onLeader(q)).status, 200, "the queue is on its leader");

    await publish(q, 3);
    // The counts are the leader's, asked for fresh (as a passive queue.declare), not a stale copy.
    const info = await m.request("GET", `/queues/${q}`);
    assert.equal(info.status, "200", String(info.body));
    assert.equal(Number((info.body as Info)["message_count"]), 3);
    assert.equal(Number((info.body as Info)["consumer_count"]), 0);
    assert.equal((info.body as Info)["leader"], apis[1]!.node);
    const redeclared = await m.request("PUT", `/queues/${q}`, { durable: true, arguments: { "x-queue-type": "classic" } });
    assert.equal(redeclared.status, "200");
    assert.equal(Number((redeclared.body as Info)["message_count"]), 3);

    const purged = await m.request("DELETE", `/queues/${q}/messages`);
    assert.equal(purged.status, "200", String(purged.body));
    assert.deepEqual(purged.body, { message_count: 3 });
    assert.equal(((await onLeader(q)).json as { messages: number }).messages, 0, "purged on its leader");

    await publish(q, 2);
    const deleted = await m.request("DELETE", `/queues/${q}`);
    assert.equal(deleted.status, "200", String(deleted.body));
    assert.deepEqual(deleted.body, { message_count: 2 });
    assert.equal((await onLeader(q)).status, 404, "deleted on its leader before the response");
    assert.equal((await m.request("GET", `/queues/${q}`)).status, "404");
    assert.equal((await m.request("DELETE", `/queues/${q}/messages`)).status, "404");
    await eventually(async () => (await apis[0]!.request("GET", `/api/queues/%2F/${q}`)).status === 404, 5000, `${q} gone on worker 0`);
  });

  it("a remote operation's response is not overtaken by the local one sent right after it", async () => {
    const remote = nameLedBy("mgmt-order-remote", 1);
    const local = nameLedBy("mgmt-order-local", 0);
    assert.equal((await m.request("PUT", `/queues/${remote}`, { durable: true })).status, "201");
    assert.equal((await m.request("PUT", `/queues/${local}`, { durable: true })).status, "201");
    await publish(remote, 4);
    const order: string[] = [];
    const seen = (ctx: EventContext): void => void order.push(String(ctx.message!.correlation_id));
    m.receiver.on("message", seen);
    try {
      // Sent back to back on the link: purge and delete of the remote queue (round trips to worker 1),
      // then a local get and a local delete, answered at once on worker 0.
      const answers = await Promise.all([
        m.request("DELETE", `/queues/${remote}/messages`, null, "1-purge-remote"),
        m.request("GET", `/queues/${local}`, null, "2-get-local"),
        m.request("DELETE", `/queues/${remote}`, null, "3-delete-remote"),
        m.request("DELETE", `/queues/${local}`, null, "4-delete-local"),
      ]);
      assert.deepEqual(answers.map((a) => a.status), ["200", "200", "200", "200"]);
      assert.deepEqual(answers[0]!.body, { message_count: 4 });
      assert.deepEqual(answers[2]!.body, { message_count: 0 });
      assert.deepEqual(order, ["1-purge-remote", "2-get-local", "3-delete-remote", "4-delete-local"]);
    } finally {
      m.receiver.removeListener("message", seen);
    }
    assert.equal((await onLeader(remote)).status, 404);
  });
});
