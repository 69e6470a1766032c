// coneyctl rebalance_queues on a single node (rabbitmq-queues rebalance all): nothing to move; it
// prints RabbitMQ 3.10's banner and one row for the node with its queue leaders by type. The
// workers' case (groups moving) is test/workers/workers-group-moves.test.ts.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { ctl, usageError } from "./run-coneyctl.js";

describe("coneyctl rebalance_queues on one node", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
    const put = async (name: string, args: Record<string, unknown>): Promise<void> => {
      const res = await fetch(`${broker.httpUrl}/api/queues/%2F/${name}`, { method: "PUT", headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" }, body: JSON.stringify({ durable: true, arguments: args }) });
      assert.equal(res.status, 201);
    };
    await put("rb-classic", {});
    await put("rb-quorum", { "x-queue-type": "quorum" });
    await put("rb-stream", { "x-queue-type": "stream" });
  });
  after(async () => broker.close());

  it("prints the node's queue leaders after an (empty) rebalance", async () => {
    const res = await ctl(broker, ["rebalance_queues"]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, `Re-balancing leaders of all queues...\nNode name\tNumber of quorum queues\tNumber of classic queues\tNumber of streams\n${broker.broker.connections.node}\t1\t1\t1\n`);
    const json = await ctl(broker, ["rebalance_queues", "all", "--formatter", "json"]);
    assert.deepEqual(JSON.parse(json.stdout), [{ "Node name": broker.broker.connections.node, "Number of quorum queues": 1, "Number of classic queues": 1, "Number of streams": 1 }]);
  });

  it("refuses a queue type other than all: a group's queues move together", async () => {
    const res = await ctl(broker, ["rebalance_queues", "classic"]);
    assert.equal(res.code, 65);
    assert.equal(res.stderr, usageError(["--port", String(broker.httpPort), "rebalance_queues", "classic"], "rebalance_queues [all]", "Bad argument: queue type 'classic': groups move every queue type together, use 'all'"));
  });
});
