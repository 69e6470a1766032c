// `promtool check metrics` (Prometheus's own linter and parser) passes on all three endpoints.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import amqp from "amqplib";
import { startMetricsBroker, type MetricsBroker } from "./metrics-fixture.js";
import { requireProgram } from "./prometheus-tools.js";
import { DETAILED_GROUP_NAMES } from "../../src/metrics/render.js";

describe("promtool check metrics", () => {
  let b: MetricsBroker;
  let conn: amqp.ChannelModel;
  before(async () => {
    b = await startMetricsBroker();
    conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue('pt "quoted" \\ queue', { durable: false });
    ch.sendToQueue('pt "quoted" \\ queue', Buffer.from("x"), { timestamp: 1_700_000_000 });
    await ch.consume("amq.rabbitmq.reply-to", () => undefined, { noAck: true });
  });
  after(async () => {
    await conn.close();
    await b.close();
  });

  const paths = ["/metrics", "/metrics/per-object", `/metrics/detailed?${DETAILED_GROUP_NAMES.map((g) => `family=${g}`).join("&")}`];
  for (const path of paths) {
    it(`passes on ${path.split("?")[0]}`, async () => {
      const promtool = requireProgram("promtool");
      const text = await b.scrapeText(path);
      const res = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" });
      assert.equal(res.status, 0, `promtool: ${res.stdout}${res.stderr}`);
      assert.equal(`${res.stdout}${res.stderr}`.trim(), "", "no lint findings");
    });
  }
});
