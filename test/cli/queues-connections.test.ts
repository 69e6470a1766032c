// coneyctl's queue, routing and client-activity commands against a real broker with real
// amqplib clients: list_queues, purge_queue, delete_queue, list_exchanges, list_bindings,
// list_connections, list_channels, list_consumers, close_connection.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";
import { ctl, usageError } from "./run-coneyctl.js";

describe("coneyctl queues and clients", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  before(async () => {
    broker = await startTestBroker();
    conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertExchange("events", "topic");
    await ch.assertQueue("audit", { durable: true, arguments: { "x-max-length": 10 } });
    await ch.bindQueue("audit", "events", "order.*");
    await ch.assertQueue("busy", { durable: false });
    await ch.consume("busy", () => {}, { consumerTag: "worker-1" });
    await ch.assertQueue("jobs");
    for (let i = 0; i < 3; i++) ch.sendToQueue("jobs", Buffer.from(`job ${i}`));
    await eventually(() => broker.broker.vhost("/").queues.get("jobs")!.messageCount === 3, 5000, "3 jobs queued");
  });
  after(async () => {
    await conn.close().catch(() => {});
    await broker.close();
  });
  const port = () => String(broker.httpPort);

  it("list_queues: rabbitmqctl's two banner lines, default columns, chosen columns", async () => {
    const [def, cols] = await Promise.all([ctl(broker, ["list_queues"]), ctl(broker, ["list_queues", "name,durable", "arguments", "consumers"])]);
    assert.deepEqual(def, { code: 0, stderr: "", stdout: "Timeout: 60.0 seconds ...\nListing queues for vhost / ...\nname\tmessages\naudit\t0\nbusy\t0\njobs\t3\n" });
    assert.equal(cols.stdout.split("\n").slice(2).join("\n"), 'name\tdurable\targuments\tconsumers\naudit\ttrue\t{"x-max-length":10}\t0\nbusy\tfalse\t[]\t1\njobs\ttrue\t[]\t0\n');
  });

  it("list_queues: node names where each queue leads; leader, members and online are empty for a classic queue, as in RabbitMQ 3.10", async () => {
    const node = ((await (await fetch(`http://127.0.0.1:${port()}/api/queues/%2F/jobs`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } })).json()) as { node: string }).node;
    assert.ok(node.length > 0);
    const res = await ctl(broker, ["list_queues", "-q", "name", "type", "node", "leader", "members", "online"]);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(res.stdout.split("\n").includes(`jobs\tclassic\t${node}\t\t\t`), res.stdout);
  });

  it("list_queues: unknown vhost 65, unknown column 64", async () => {
    const [vhost, col] = await Promise.all([ctl(broker, ["list_queues", "-p", "nope"]), ctl(broker, ["list_queues", "name", "pid"])]);
    assert.deepEqual([vhost.code, vhost.stderr], [65, "Error:\nVirtual host nope does not exist\n"]);
    assert.equal(col.code, 64);
    assert.ok(col.stderr.startsWith("Error (argument validation): Info key(s) pid are not supported\n"), col.stderr);
  });

  it("list_exchanges and list_bindings", async () => {
    const [x, b] = await Promise.all([ctl(broker, ["list_exchanges", "-q"]), ctl(broker, ["list_bindings", "-q", "--no-table-headers"])]);
    assert.equal(x.code, 0);
    assert.ok(x.stdout.startsWith("name\ttype\n"), x.stdout);
    assert.ok(x.stdout.includes("\n\tdirect\n") && x.stdout.includes("\nevents\ttopic\n") && x.stdout.includes("\namq.fanout\tfanout\n"), x.stdout);
    assert.equal(b.code, 0);
    assert.ok(b.stdout.includes("events\texchange\taudit\tqueue\torder.*\t[]\n"), b.stdout);
    const bad = await ctl(broker, ["list_bindings", "-p", "nope"]);
    assert.deepEqual([bad.code, bad.stdout, bad.stderr], [65, "Listing bindings for vhost nope...\n", "Error:\nVirtual host nope does not exist\n"]);
  });

  it("list_connections, list_channels and list_consumers", async () => {
    const [c, ch, co] = await Promise.all([ctl(broker, ["list_connections"]), ctl(broker, ["list_channels"]), ctl(broker, ["list_consumers"])]);
    assert.match(c.stdout, /^Listing connections \.\.\.\nuser\tpeer_host\tpeer_port\tstate\nguest\t127\.0\.0\.1\t\d+\trunning\n$/);
    assert.match(ch.stdout, /^Listing channels \.\.\.\npid\tuser\tconsumer_count\tmessages_unacknowledged\n\S.* \(1\)\tguest\t1\t0\n$/);
    assert.match(co.stdout, /^Listing consumers in vhost \/ \.\.\.\nqueue_name\tchannel_pid\tconsumer_tag\tack_required\tprefetch_count\tactive\targuments\nbusy\t.+ \(1\)\tworker-1\ttrue\t0\ttrue\t\[\]\n$/);
    const none = await ctl(broker, ["list_consumers", "-p", "nope"]);
    assert.equal(none.code, 65);
  });

  it("purge_queue empties a queue; an unknown queue exits 69", async () => {
    const q = broker.broker.vhost("/").queues.get("jobs")!;
    const purge = await ctl(broker, ["purge_queue", "jobs"]);
    assert.deepEqual(purge, { code: 0, stderr: "", stdout: "Purging queue 'jobs' in vhost '/' ...\n" });
    assert.equal(q.messageCount, 0);
    const missing = await ctl(broker, ["purge_queue", "ghost"]);
    assert.deepEqual([missing.code, missing.stderr], [69, "Error:\nQueue 'ghost' in vhost '/' was not found\n"]);
  });

  it("delete_queue reports the ready count; --if-empty/--if-unused refuse with exit 64 and keep the queue", async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue("doomed");
    ch.sendToQueue("doomed", Buffer.from("x"));
    ch.sendToQueue("doomed", Buffer.from("y"));
    await eventually(() => broker.broker.vhost("/").queues.get("doomed")?.messageCount === 2, 5000, "2 messages in doomed");
    const [notEmpty, inUse] = await Promise.all([ctl(broker, ["delete_queue", "doomed", "--if-empty"]), ctl(broker, ["delete_queue", "-u", "busy"])]);
    assert.deepEqual(notEmpty, { code: 64, stdout: "Deleting queue 'doomed' on vhost '/' if queue is empty ...\n", stderr: "Error:\nQueue is not empty\n" });
    assert.deepEqual([inUse.code, inUse.stderr], [64, "Error:\nQueue is in use\n"]);
    assert.ok(broker.broker.vhost("/").queues.has("doomed") && broker.broker.vhost("/").queues.has("busy"));
    const del = await ctl(broker, ["delete_queue", "doomed"]);
    assert.deepEqual(del, { code: 0, stderr: "", stdout: "Deleting queue 'doomed' on vhost '/' ...\nQueue was successfully deleted with 2 ready messages\n" });
    assert.equal(broker.broker.vhost("/").queues.has("doomed"), false);
    const missing = await ctl(broker, ["delete_queue", "doomed"]);
    assert.deepEqual([missing.code, missing.stderr], [64, "Error:\nQueue not found\n"]);
    await ch.close();
  });

  it("queue and connection commands without their arguments exit 64", async () => {
    const cases: [string[], string][] = [
      [["purge_queue"], "purge_queue <queue>"],
      [["delete_queue"], "delete_queue <queue_name> [--if-empty|-e] [--if-unused|-u]"],
      [["close_connection", "x"], "close_connection <connection pid> <explanation>"],
    ];
    const results = await Promise.all(cases.map(([args]) => ctl(broker, args)));
    results.forEach((r, i) => assert.deepEqual(r, { code: 64, stdout: "", stderr: usageError(["--port", port(), ...cases[i]![0]], cases[i]![1]) }));
  });

  it("close_connection closes the connection named by list_connections' pid column", async () => {
    const victim = await amqp.connect(broker.amqpUrl);
    const closed = new Promise<Error | undefined>((resolve) => victim.on("close", resolve));
    victim.on("error", () => {});
    const list = await ctl(broker, ["list_connections", "-s", "pid", "peer_port"]);
    const localPort = (victim.connection as unknown as { stream: { localPort: number } }).stream.localPort;
    const row = list.stdout.split("\n").find((l) => l.endsWith(`\t${localPort}`));
    assert.ok(row, list.stdout);
    const name = row.split("\t")[0]!;
    const r = await ctl(broker, ["close_connection", name, "maintenance window"]);
    assert.deepEqual(r, { code: 0, stderr: "", stdout: `Closing connection ${name}, reason: maintenance window...\n` });
    const err = await closed;
    assert.match(String(err), /CONNECTION_FORCED - maintenance window/);
    const again = await ctl(broker, ["close_connection", name, "again"]);
    assert.deepEqual([again.code, again.stderr], [69, `Error:\nConnection ${name} was not found\n`]);
  });
});
