// Internal exchanges refuse publishes (RabbitMQ's 403 text) yet still route what reaches them
// through exchange-to-exchange bindings.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("internal exchanges", () => {
  const f = useBrokerWithConnection();

  it("refuses a direct publish with ACCESS_REFUSED and routes via an e2e binding", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertExchange("int.x", "fanout", { durable: false, internal: true });
    await ch.assertExchange("front.x", "fanout", { durable: false });
    await ch.bindExchange("int.x", "front.x", "");
    await ch.assertQueue("int.q", { durable: false });
    await ch.bindQueue("int.q", "int.x", "");
    ch.publish("front.x", "", Buffer.from("via front"));
    await eventually(async () => (await ch.checkQueue("int.q")).messageCount === 1);
    await ch.deleteExchange("int.x");
    await ch.deleteExchange("front.x");
    await ch.deleteQueue("int.q");
    const bad = await f.conn.createChannel();
    await bad.assertExchange("int.y", "fanout", { durable: false, internal: true });
    const err = new Promise<string>((resolve) => bad.on("error", (e: Error) => resolve(e.message)));
    bad.publish("int.y", "", Buffer.from("direct"));
    assert.match(await withTimeout(err, 3000, "channel error"), /403 \(ACCESS-REFUSED\) with message "ACCESS_REFUSED - cannot publish to internal exchange 'int.y' in vhost '\/'"/);
    await ch.deleteExchange("int.y");
    await ch.close();
  });
});
