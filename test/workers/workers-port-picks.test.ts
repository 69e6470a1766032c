// `coney --workers 2` with port 0: a port the primary picked, taken by another process before the
// workers bound it, makes the start run again on fresh picks (src/listeners/port-picks.ts); a port
// the user set is never changed. The taken port is handed over with CONEY_WORKERS_FIRST_PICK
// while this test holds it, so the race is played every time, not waited for.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import amqp from "amqplib";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { connectMqtt } from "../helpers/mqtt-client.js";
import { asTakenPickedPort, belowRange, downPickedListener, ephemeralRange, freePorts, PickedPortTaken } from "../../src/listeners/port-picks.js";

/** A port held by this process on 127.0.0.1 until closed. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

describe("coney --workers 2: a picked port taken before the workers bound it is picked again", () => {
  const open: Array<{ close(): unknown }> = [];
  after(async () => {
    for (const o of open.reverse()) await o.close();
  });

  for (const [setting, protocol] of [["amqpPort", "AMQP"], ["mqttPort", "mqtt"]] as const) {
    it(`the ${protocol} port: the workers start on a fresh pick, which serves, and the primary says why`, async () => {
      const held = await holdPort();
      open.push({ close: () => new Promise((r) => held.server.close(r)) });
      const p: WorkersProcess = await startWorkers([], { CONEY_WORKERS_FIRST_PICK: `${setting}=${held.port}` });
      open.push(p);
      const started = await p.logLine((l) => l.msg === "Coney started", "the start line");
      const again = await p.logLine((l) => l.msg.startsWith("a port picked for port 0 was taken"), "the primary's warning");
      assert.equal(again["port"], held.port);
      assert.equal(again["attempt"], 1);
      const port = started[setting === "amqpPort" ? "amqp_port" : "mqtt_port"] as number;
      assert.notEqual(port, held.port, "the start line names the fresh pick");
      if (setting === "amqpPort") {
        const c = await amqp.connect(`amqp://guest:guest@127.0.0.1:${port}`);
        const ch = await c.createChannel();
        assert.equal((await ch.assertQueue("picked-again")).queue, "picked-again");
        await c.close();
      } else {
        const m = await connectMqtt(`mqtt://127.0.0.1:${port}`, { clientId: "picked-again" });
        assert.equal(m.connack?.returnCode, 0);
        await m.client.endAsync();
      }
    });
  }

  it("a port the user set is never picked again: the start fails naming its setting", async () => {
    const held = await holdPort();
    open.push({ close: () => new Promise((r) => held.server.close(r)) });
    await assert.rejects(startWorkers(["--amqp-port", String(held.port)]), /exit 1/);
  });
});

describe("port picks (pure parts)", () => {
  it("reads the kernel's ephemeral range, and none from a missing or bad file", () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-range-"));
    try {
      writeFileSync(join(dir, "range"), "32768\t60999\n");
      assert.deepEqual(ephemeralRange(join(dir, "range")), { low: 32768, high: 60999 });
      writeFileSync(join(dir, "bad"), "sixty\n");
      assert.equal(ephemeralRange(join(dir, "bad")), null);
      assert.equal(ephemeralRange(join(dir, "missing")), null);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("picks below the range and below the local cluster's picks, never a privileged port, and none when too little lies below", () => {
    assert.deepEqual(belowRange({ low: 32768 }), { from: 10000, to: 19999 }, "the local cluster picks from 20000 up");
    assert.deepEqual(belowRange({ low: 10000 }), { from: 1024, to: 9999 });
    assert.equal(belowRange({ low: 1500 }), null);
    assert.equal(belowRange(null), null);
  });

  it("gives distinct free ports inside the candidates, and the kernel's where there are none", async () => {
    const range = { from: 20000, to: 20999 };
    const ports = await freePorts(12, "127.0.0.1", range);
    assert.equal(new Set(ports).size, 12);
    for (const p of ports) assert.ok(p >= 20000 && p <= 20999, `${p} in the candidates`);
    const kernel = await freePorts(2, "127.0.0.1", null);
    assert.equal(new Set(kernel).size, 2);
  });

  it("tells a taken picked port from any other failure", () => {
    const inUse = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE", port: 20001 });
    assert.equal(asTakenPickedPort(inUse, [20001])?.port, 20001);
    assert.equal(asTakenPickedPort(inUse, [20002]), null, "a port the user set");
    assert.equal(asTakenPickedPort(new Error("disk full"), [20001]), null);
    const taken = new PickedPortTaken(20003, "stomp");
    assert.equal(asTakenPickedPort(taken, []), taken);
    const listeners = [{ protocol: "amqp", port: 20001, up: true }, { protocol: "mqtt", port: 20004, up: false }, { protocol: "stomp", port: 20005, up: false }];
    assert.equal(downPickedListener(listeners, [20001, 20005])?.protocol, "stomp");
    assert.equal(downPickedListener(listeners, [20001]), null);
  });
});
