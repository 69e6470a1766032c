// The file-descriptor limit reached (the broker started under a low `ulimit -n`): new AMQP
// connections are refused cleanly (530 at connection.open; a flood of bare sockets is closed at
// once), while existing connections keep publishing persistent messages (the store still opens
// files), definitions are still saved and the management API answers with the figures.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ChannelModel } from "amqplib";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { spawnChildBroker } from "./fault-harness.js";

// Low enough to reach with a few hundred connections, high enough for Node's ESM loader, which
// reads the broker's modules in parallel at start.
const FD_LIMIT = 200;

describe("fault: the file-descriptor limit is reached", () => {
  it("refuses new connections cleanly and keeps serving the ones it has, the store and the API", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-fd-"));
    const b = await spawnChildBroker({ dataDir, http: true, fdLimit: FD_LIMIT, args: ["--disk-free-limit", "0"] });
    const api = apiClient(() => `http://127.0.0.1:${b.httpPort}`);
    const conns: ChannelModel[] = [];
    const raw: Socket[] = [];
    try {
      let refusal: Error | null = null;
      for (let i = 0; i < FD_LIMIT && refusal === null; i++) {
        try {
          const c = await amqp.connect(b.url);
          c.on("error", () => undefined);
          conns.push(c);
        } catch (err) {
          refusal = err as Error;
        }
      }
      assert.ok(refusal !== null, `a connection is refused before ${FD_LIMIT} (${conns.length} open)`);
      // amqplib reports the 530 connection.close it got instead of connection.open-ok.
      assert.match(refusal.message, /ConnectionClose|530|NOT_ALLOWED/i, "refused with an AMQP connection.close, not a reset");
      assert.ok(conns.length >= 5, `some connections fit (${conns.length})`);

      // A flood of sockets that never handshake: closed at once beyond a few.
      for (let i = 0; i < 40; i++) {
        const s = connect(b.amqpPort, "127.0.0.1");
        s.on("error", () => undefined);
        raw.push(s);
      }
      await eventually(() => raw.filter((s) => s.destroyed || s.closed).length >= 20, 5000, "the surplus sockets to be closed");

      // What is open keeps working: persistent confirmed publishing (the store opens its files).
      const ch = await conns[0]!.createConfirmChannel();
      await ch.assertQueue("fd-q", { durable: true });
      for (let i = 0; i < 100; i++) ch.sendToQueue("fd-q", Buffer.alloc(1024), { persistent: true });
      await ch.waitForConfirms();
      await eventually(() => readFileSync(join(dataDir, "definitions.json"), "utf8").includes('"fd-q"'), 5000, "the definitions save");

      const nodes = await api("GET", "/api/nodes");
      assert.equal(nodes.status, 200, "the management API answers");
      const node = nodes.json[0] as Record<string, number>;
      assert.equal(node["fd_total"], FD_LIMIT);
      assert.equal(node["sockets_used"], conns.length);
      assert.equal(node["sockets_total"], conns.length, "the node record shows the socket limit reached");
      assert.ok(node["fd_used"]! <= FD_LIMIT);
      assert.equal((await api("GET", "/api/health/checks/alarms")).status, 200);

      // A freed socket can be used again.
      for (const s of raw) s.destroy();
      await conns.pop()!.close();
      const again = await amqp.connect(b.url);
      await again.close();
      assert.ok(b.alive());
    } finally {
      for (const s of raw) s.destroy();
      await b.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
