// A definitions save on a full disk (the crash: ENOSPC thrown from the save timer): the
// broker stays up, the old file stays valid and whole, the disk alarm goes on (health check 503),
// the save is retried and succeeds once there is room, which clears the alarm. The same after a
// kill -9 and a restart on the still-full disk.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import amqp from "amqplib";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { fillDisk, tmpfsForSuite, spawnChildBroker, type ChildBroker } from "./fault-harness.js";

interface SavedDefinitions {
  queues: Array<{ name: string }>;
}

const savedQueues = (dataDir: string): string[] => (JSON.parse(readFileSync(join(dataDir, "definitions.json"), "utf8")) as SavedDefinitions).queues.map((q) => q.name).sort();

async function declareDurable(b: ChildBroker, name: string): Promise<void> {
  const conn = await amqp.connect(b.url);
  const ch = await conn.createChannel();
  await ch.assertQueue(name, { durable: true });
  await conn.close();
}

const alarmStatus = async (b: ChildBroker): Promise<number> => (await apiClient(() => `http://127.0.0.1:${b.httpPort}`)("GET", "/api/health/checks/alarms")).status;

describe("fault: full disk under a definitions save", () => {
  const mountPoint = tmpfsForSuite(16);

  it("keeps the old file, raises the disk alarm, retries until it can write, and never exits", async () => {
    const dataDir = join(mountPoint(), "data");
    const start = (): Promise<ChildBroker> => spawnChildBroker({ dataDir, http: true, args: ["--disk-free-limit", "0", "--alarm-interval", "100"] });
    let b = await start();
    let filler = "";
    try {
      await declareDurable(b, "before-full");
      await eventually(() => savedQueues(dataDir).includes("before-full"), 5000, "the first save");
      filler = fillDisk(mountPoint());

      await declareDurable(b, "while-full");
      await eventually(async () => (await alarmStatus(b)) === 503, 5000, "the disk alarm after a failed save");
      assert.ok(b.alive(), "the broker is still running");
      assert.deepEqual(savedQueues(dataDir), ["before-full"], "the old file is still there, whole");
      assert.deepEqual(readdirSync(dataDir).filter((f) => f.includes(".tmp-")), [], "no half-written temporary file is left");

      // kill -9 and start again on the still-full disk: it comes up and stays up.
      await b.kill();
      b = await start();
      await declareDurable(b, "after-restart");
      await eventually(async () => (await alarmStatus(b)) === 503, 5000, "the disk alarm after the restart");
      // Several retries (one a second) fail on the full disk without ending the process.
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(b.alive(), "the restarted broker is still running");
      assert.deepEqual(savedQueues(dataDir), ["before-full"]);

      rmSync(filler, { force: true });
      await eventually(() => savedQueues(dataDir).includes("after-restart"), 5000, "the retried save once there is room");
      await eventually(async () => (await alarmStatus(b)) === 200, 5000, "the disk alarm to clear");
      assert.ok(b.alive());
    } finally {
      await b.kill();
      if (filler) rmSync(filler, { force: true });
    }
  });
});
