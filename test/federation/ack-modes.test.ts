// Each ack-mode moves every message and leaves the upstream queue empty: on-confirm acks upstream
// after the downstream confirmed, on-publish right after republishing, no-ack consumes without
// acks; trust-user-id keeps the user-id property, which is dropped otherwise.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

describe("federation ack modes", () => {
  let up: TestBroker;
  let down: TestBroker;
  const api = apiClient(() => down.httpUrl);
  const apiUp = apiClient(() => up.httpUrl);
  before(async () => {
    up = await startTestBroker({ clusterName: "ack-up" });
    down = await startTestBroker({ clusterName: "ack-down" });
  });
  after(async () => {
    await down?.close();
    await up?.close();
  });

  for (const [mode, trust] of [["on-confirm", false], ["on-publish", true], ["no-ack", false]] as const) {
    it(`${mode}${trust ? " with trust-user-id" : ""}: all 200 messages arrive and the upstream queue drains`, async () => {
      const x = `fed.${mode}`;
      const conn = await amqp.connect(down.amqpUrl);
      const ch = await conn.createChannel();
      await ch.assertExchange(x, "fanout", { durable: true });
      const { queue } = await ch.assertQueue("", { exclusive: true });
      await ch.bindQueue(queue, x, "");
      const got: amqp.ConsumeMessage[] = [];
      await ch.consume(queue, (m) => m && got.push(m), { noAck: true });
      assert.equal((await api("PUT", `/api/parameters/federation-upstream/%2f/${mode}`, { value: { uri: up.amqpUrl, "ack-mode": mode, "trust-user-id": trust, "prefetch-count": 20 } })).status, 201);
      assert.equal((await api("PUT", `/api/policies/%2f/${mode}`, { pattern: `^${x.replace(".", "\\.")}$`, "apply-to": "exchanges", definition: { "federation-upstream": mode } })).status, 201);
      const upQueue = `/api/queues/%2f/${encodeURIComponent(`federation: ${x} -> ack-down`)}`;
      await eventually(async () => (await apiUp("GET", `/api/exchanges/%2f/${x}/bindings/source`)).json.length === 1, 10_000, "the upstream binding");
      const uconn = await amqp.connect(up.amqpUrl);
      const uch = await uconn.createConfirmChannel();
      for (let i = 0; i < 200; i++) uch.publish(x, "", Buffer.from(String(i)), { persistent: true, userId: "guest" });
      await uch.waitForConfirms();
      await uconn.close();
      await eventually(() => got.length === 200, 10_000, "200 messages downstream");
      assert.deepEqual(got.map((m) => Number(m.content.toString())), Array.from({ length: 200 }, (_, i) => i));
      assert.equal(got[0]!.properties.userId, trust ? "guest" : undefined);
      await eventually(async () => {
        const q = (await apiUp("GET", upQueue)).json;
        return q.messages === 0;
      }, 10_000, "the upstream queue drained");
      await conn.close();
    });
  }
});
