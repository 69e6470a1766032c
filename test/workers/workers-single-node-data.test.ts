// `coney --workers 2` on the data dir a single node wrote (the README's `npm start`, then the same
// data dir with --workers). The workers keep definitions and messages per worker and queue group,
// so they cannot take over a single node's data; without a queue_groups setting the refusal said
// "queue_groups = 16 was asked … Remove the setting", though the user had set nothing (found
// trying the README as a new user). It now says what the data dir is and what to do instead, and
// leaves the data as it was. Real single-node broker, real `node bin/coney.js --workers 2`.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";

const CONEY = join(import.meta.dirname, "..", "..", "..", "bin", "coney.js");

describe("coney --workers 2 on a single node's data dir", () => {
  it("is refused with what the data dir is and what to do, and the single node's messages stay", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-single-then-workers-"));
    try {
      const single = await startTestBroker({ dataDir });
      const c1 = await amqp.connect(`amqp://guest:guest@127.0.0.1:${single.amqpPort}`);
      const ch1 = await c1.createConfirmChannel();
      await ch1.assertQueue("kept-from-single", { durable: true });
      ch1.sendToQueue("kept-from-single", Buffer.from("m0"), { persistent: true });
      await ch1.waitForConfirms();
      await c1.close();
      await single.close();
      const before = readdirSync(dataDir).sort();

      const off = ["--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off"];
      const r = spawnSync(process.execPath, [CONEY, "--workers", "2", "--amqp-port", "0", "--http-port", "0", ...off, "--data-dir", dataDir], { encoding: "utf8", timeout: 30_000 });
      assert.notEqual(r.status, 0, "refused");
      assert.match(r.stderr, /was written by a single node/);
      assert.match(r.stderr, /Start the workers with a new --data-dir/);
      assert.doesNotMatch(r.stderr, /queue_groups = 16 was asked/);
      assert.deepEqual(readdirSync(dataDir).sort(), before, "nothing written into the single node's data dir");

      const again = await startTestBroker({ dataDir });
      const c2 = await amqp.connect(`amqp://guest:guest@127.0.0.1:${again.amqpPort}`);
      const got = await (await c2.createChannel()).get("kept-from-single", { noAck: true });
      assert.ok(got !== false && got.content.toString() === "m0", "the single node still has its message");
      await c2.close();
      await again.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
