// docs/MIGRATING.md's walkthrough, with two Coney brokers standing in for both sides (CI runs no
// RabbitMQ; the steps use only the management API and AMQP, which RabbitMQ serves alike):
// export the old broker's definitions with coneyctl, import them into the new one, shovel each
// queue over on-confirm while a producer keeps publishing to the old broker and then moves,
// switch the consumer, and once the old queues stay empty delete the shovels. Every message the
// producer had confirmed reaches the consumer.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { ctl } from "../cli/run-coneyctl.js";
import { queueCounts, waitForState } from "./shovel-helpers.js";

describe("migrating a running estate (docs/MIGRATING.md)", () => {
  let old: TestBroker;
  let next: TestBroker;
  const dir = mkdtempSync(join(tmpdir(), "coney-migrate-"));
  const oldApi = apiClient(() => old.httpUrl);
  const nextApi = apiClient(() => next.httpUrl);
  before(async () => {
    old = await startTestBroker();
    next = await startTestBroker();
    // The estate: a vhost, an application user, an exchange bound to two durable queues.
    for (const [method, path, body] of [
      ["PUT", "/api/vhosts/shop", {}],
      ["PUT", "/api/users/app", { password: "app-pw", tags: "" }],
      ["PUT", "/api/permissions/shop/app", { configure: ".*", write: ".*", read: ".*" }],
      ["PUT", "/api/permissions/shop/guest", { configure: ".*", write: ".*", read: ".*" }],
      ["PUT", "/api/exchanges/shop/orders", { type: "topic", durable: true }],
      ["PUT", "/api/queues/shop/billing", { durable: true }],
      ["PUT", "/api/queues/shop/shipping", { durable: true }],
      ["POST", "/api/bindings/shop/e/orders/q/billing", { routing_key: "order.#" }],
      ["POST", "/api/bindings/shop/e/orders/q/shipping", { routing_key: "order.paid" }],
    ] as const) {
      const r = await oldApi(method, path, body);
      assert.ok(r.status < 300, `${method} ${path}: ${r.status}`);
    }
  });
  after(async () => {
    await next.close();
    await old.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("moves queues, producers and consumers over with nothing lost", async () => {
    // 1. Export the definitions from the old broker, import them into the new one.
    const file = join(dir, "definitions.json");
    assert.equal((await ctl(old, ["export_definitions", file])).code, 0);
    const imported = await ctl(next, ["import_definitions", file]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal((await nextApi("GET", "/api/queues/shop/billing")).status, 200);
    assert.equal((await nextApi("GET", "/api/bindings/shop/e/orders/q/shipping")).json.length, 1);
    assert.ok(next.broker.authenticate("app", "app-pw"), "the application's user and password came along");

    // A producer publishing to the old broker all along (confirmed messages are the ones that must arrive).
    const confirmed: string[] = [];
    let target = old.urlFor("app", "app-pw", "shop");
    let stop = false;
    const producer = (async () => {
      let n = 0;
      while (!stop) {
        const conn = await amqp.connect(target);
        const ch = await conn.createConfirmChannel();
        const here = target;
        while (!stop && target === here) {
          const id = String(n++);
          ch.publish("orders", "order.paid", Buffer.from(id), { persistent: true, messageId: id });
          await ch.waitForConfirms();
          confirmed.push(id);
        }
        await conn.close();
      }
    })();
    await eventually(() => confirmed.length >= 50, 10_000, "the producer under way on the old broker");

    // 2. Shovel each queue from the old broker into the same queue on the new one, on-confirm.
    const oldUri = `amqp://guest:guest@127.0.0.1:${old.amqpPort}/shop`;
    for (const q of ["billing", "shipping"]) {
      const value = { "src-uri": oldUri, "src-queue": q, "dest-uri": "amqp:///shop", "dest-queue": q, "ack-mode": "on-confirm" };
      assert.equal((await nextApi("PUT", `/api/parameters/shovel/shop/move-${q}`, { value })).status, 201);
      await waitForState(nextApi, "shop", `move-${q}`, "running");
    }
    await eventually(() => confirmed.length >= 150, 10_000, "more published while the shovels run");

    // 3. The producer moves to the new broker.
    target = next.urlFor("app", "app-pw", "shop");
    await eventually(() => confirmed.length >= 250, 10_000, "publishing on the new broker");
    stop = true;
    await producer;

    // 4. The consumers switch to the new broker; the old queues drain through the shovels.
    for (const q of ["billing", "shipping"]) {
      await eventually(async () => {
        const c = await queueCounts(oldApi, "shop", q);
        return c?.messages === 0 && c.unacked === 0;
      }, 20_000, `old ${q} drained`);
    }
    const conn = await amqp.connect(next.urlFor("app", "app-pw", "shop"));
    const ch = await conn.createChannel();
    const got = new Map<string, Set<string>>([["billing", new Set()], ["shipping", new Set()]]);
    for (const q of got.keys()) await ch.consume(q, (m) => {
      if (!m) return;
      got.get(q)!.add(m.properties.messageId as string);
      ch.ack(m);
    });
    await eventually(() => [...got.values()].every((ids) => confirmed.every((id) => ids.has(id))), 20_000, "every confirmed message at both consumers");
    await conn.close();

    // 5. Nothing lands on the old broker any more: the shovels go, the old broker can be retired.
    for (const q of ["billing", "shipping"]) assert.equal((await nextApi("DELETE", `/api/parameters/shovel/shop/move-${q}`)).status, 204);
    assert.deepEqual((await nextApi("GET", "/api/shovels")).json, []);
  });
});
