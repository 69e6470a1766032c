// The `coney` binary started from a RabbitMQ user's rabbitmq.conf: it listens where the file
// says, creates the file's default user and vhost, reports the file on the node record, and names
// the keys it ignores in one warning line.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { withTimeout } from "../helpers/wait.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

describe("coney --config rabbitmq.conf", () => {
  it("starts from RabbitMQ's configuration format", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-conf-start-"));
    const conf = join(dir, "rabbitmq.conf");
    writeFileSync(
      conf,
      [
        "# ports 0: ephemeral, for the test",
        "listeners.tcp.default = 127.0.0.1:0",
        "management.tcp.port = 0",
        "management.tcp.ip = 127.0.0.1",
        "prometheus.tcp.port = 0",
        "prometheus.tcp.ip = 127.0.0.1",
        "stomp.listeners.tcp.default = 0",
        "web_stomp.tcp.port = 0",
        "default_user = admin",
        "default_pass = conf-pass",
        "default_vhost = prod",
        "loopback_users.guest = false",
        "cluster_name = from-rabbitmq-conf",
        "heartbeat = 20",
        "disk_free_limit.absolute = 1MB",
        "log.console.level = info",
        "collect_statistics_interval = 10000",
        "amqp1_0.default_user = guest",
        "",
      ].join("\n"),
    );
    const child = spawn(process.execPath, [bin, "--config", conf, "--data-dir", join(dir, "data")], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const [amqpPort, httpPort] = await withTimeout(
        new Promise<[number, number]>((resolve) => {
          child.stderr.on("data", (d: Buffer) => {
            stderr += d.toString();
            const m = /"msg":"Coney started","amqp_port":(\d+),"http_port":(\d+)/.exec(stderr);
            if (m) resolve([Number(m[1]), Number(m[2])]);
          });
        }),
        10_000,
        "the startup log line",
      );
      const warnings = stderr.split("\n").filter((l) => l.includes("settings Coney does not support"));
      assert.equal(warnings.length, 1, stderr);
      assert.match(warnings[0]!, /"level":"warn"/);
      assert.match(warnings[0]!, /ignored: collect_statistics_interval, amqp1_0\.default_user"/);

      const conn = await amqp.connect(`amqp://admin:conf-pass@127.0.0.1:${amqpPort}/prod`);
      assert.equal((conn.connection as unknown as { heartbeat: number }).heartbeat, 20);
      await conn.close();
      const auth = { authorization: `Basic ${Buffer.from("admin:conf-pass").toString("base64")}` };
      const overview = (await (await fetch(`http://127.0.0.1:${httpPort}/api/overview`, { headers: auth })).json()) as { cluster_name: string };
      assert.equal(overview.cluster_name, "from-rabbitmq-conf");
      const [node] = (await (await fetch(`http://127.0.0.1:${httpPort}/api/nodes`, { headers: auth })).json()) as Array<{ config_files: string[]; disk_free_limit: number }>;
      assert.deepEqual(node!.config_files, [conf]);
      assert.equal(node!.disk_free_limit, 1_000_000);
      const guest = await fetch(`http://127.0.0.1:${httpPort}/api/whoami`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } });
      assert.equal(guest.status, 401, "the file's default user replaces guest");
    } finally {
      child.kill("SIGTERM");
      assert.equal(await withTimeout(exited, 10_000, "exit after SIGTERM"), 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
