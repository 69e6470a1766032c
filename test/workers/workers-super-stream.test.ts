// Super streams under `coney --workers 2`, with rabbitmq-stream-js-client (its own e2e suite, run
// against the workers, found both): partitions are streams, so a super stream's partitions are led
// by both workers. CreateSuperStream answers once both workers know every partition (the client's
// next step, an HTTP GET landing on either worker, finds them), and DeleteSuperStream deletes each
// partition on its leader (a partition led by the other worker was refused with internal_error,
// and the exchange stayed). Partitions and Route answer the same from either worker.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, type Client } from "rabbitmq-stream-js-client";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { request } from "./worker-landing.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { silentStreamLog } from "../stream/killed-stream-client.js";

/** A super stream name whose three partitions (`<name>-0…2`) are led by both workers. */
function spanningBoth(prefix: string): string {
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`;
    const leaders = new Set([0, 1, 2].map((n) => queueGroupOf("/", `${name}-${n}`, 2)));
    if (leaders.size === 2) return name;
  }
}

describe("super streams whose partitions are led by both workers of coney --workers 2", () => {
  let p: WorkersProcess;
  let sharedPort = 0;
  let own: number[] = [];
  const clients: Client[] = [];

  /** A client whose locator connection landed on worker `w` of the shared port (Open advertises the worker's own port). */
  const clientOn = async (w: number): Promise<Client> => {
    for (let i = 0; i < 20; i++) {
      const c = await connect({ hostname: "127.0.0.1", port: sharedPort, username: "guest", password: "guest", vhost: "/", heartbeat: 0 }, silentStreamLog);
      clients.push(c);
      if (c.getConnectionInfo().port === own[w]) return c;
    }
    throw new Error(`no stream connection landed on w${w}`);
  };
  /** The status of GET /api/queues/%2F/<name> on four new TCP connections in a row (either worker answers each). */
  const statuses = async (name: string): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < 4; i++) out.push((await request(p.httpPort, "GET", `/api/queues/%2F/${encodeURIComponent(name)}`, undefined, false)).status);
    return out;
  };

  before(async () => {
    p = await startWorkers(["--stream-advertised-host", "127.0.0.1"]);
    const started = p.lines.find((l) => l.msg === "Coney started")!;
    sharedPort = started["stream_port"] as number;
    own = started["stream_worker_ports"] as number[];
  });
  after(async () => {
    await Promise.all(clients.map((c) => withTimeout(c.close(), 2000, "a stream client's close").catch(() => {})));
    await p.close();
  });

  for (const via of [0, 1]) {
    it(`created and deleted through w${via}: every partition known to both workers at the answer, gone from both at the delete's`, async () => {
      const name = spanningBoth(`super-w${via}`);
      const parts = [0, 1, 2].map((n) => `${name}-${n}`);
      const c = await clientOn(via);
      assert.equal(await c.createSuperStream({ streamName: name, arguments: { "max-age": "1h" } }), true);
      for (const s of parts) assert.deepEqual(await statuses(s), [200, 200, 200, 200], `${s} on both workers once CreateSuperStream answered`);
      // Partitions and Route from either worker, in the partitions' order.
      for (const w of [0, 1]) {
        const on = await clientOn(w);
        assert.deepEqual(await on.queryPartitions({ superStream: name }), parts, `Partitions on w${w}`);
        assert.deepEqual(await on.routeQuery({ routingKey: "1", superStream: name }), [parts[1]], `Route on w${w}`);
      }
      assert.equal(await c.deleteSuperStream({ streamName: name }), true, "DeleteSuperStream answered OK");
      for (const s of parts) assert.deepEqual(await statuses(s), [404, 404, 404, 404], `${s} gone from both workers once DeleteSuperStream answered`);
      assert.deepEqual((await request(p.httpPort, "GET", `/api/exchanges/%2F/${name}`, undefined, false)).status, 404, "the super stream's exchange is gone");
    });
  }
});
