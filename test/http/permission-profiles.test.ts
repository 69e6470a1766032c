// The spec's five permission profiles (configure, write, read) applied by the management API to
// queue, exchange, binding, publish and get operations: 403 when the pattern refuses, and an
// AMQP client's view agreeing with it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

const PROFILES = {
  full: [".*", ".*", ".*"],
  producer: ["^$", "^orders$", "^$"],
  consumer: ["^$", "^$", "^orders-.*"],
  monitor: ["^$", "^$", ".*"],
  isolated: ["^app1_.*", "^app1_.*", "^app1_.*"],
} as const;
type Profile = keyof typeof PROFILES;

const publish = (routingKey: string) => ({ routing_key: routingKey, payload: "m", payload_encoding: "string", properties: {} });
const get = { count: 1, ackmode: "ack_requeue_true", encoding: "auto" };

/** [what, method, path, body, expected status per profile]. */
const CASES: ReadonlyArray<readonly [string, string, string, unknown, Record<Profile, number>]> = [
  ["declare a queue", "PUT", "/api/queues/%2f/app1_new", {}, { full: 201, producer: 403, consumer: 403, monitor: 403, isolated: 201 }],
  ["declare another app's queue", "PUT", "/api/queues/%2f/app2_q", {}, { full: 201, producer: 403, consumer: 403, monitor: 403, isolated: 403 }],
  ["declare an exchange", "PUT", "/api/exchanges/%2f/app1_x2", { type: "fanout" }, { full: 201, producer: 403, consumer: 403, monitor: 403, isolated: 201 }],
  ["publish to orders", "POST", "/api/exchanges/%2f/orders/publish", publish("k"), { full: 200, producer: 200, consumer: 403, monitor: 403, isolated: 403 }],
  ["publish to another exchange", "POST", "/api/exchanges/%2f/other/publish", publish("k"), { full: 200, producer: 403, consumer: 403, monitor: 403, isolated: 403 }],
  ["publish to app1_x", "POST", "/api/exchanges/%2f/app1_x/publish", publish(""), { full: 200, producer: 403, consumer: 403, monitor: 403, isolated: 200 }],
  ["get from orders-1", "POST", "/api/queues/%2f/orders-1/get", get, { full: 200, producer: 403, consumer: 200, monitor: 200, isolated: 403 }],
  ["get from jobs", "POST", "/api/queues/%2f/jobs/get", get, { full: 200, producer: 403, consumer: 403, monitor: 200, isolated: 403 }],
  ["get from app1_q", "POST", "/api/queues/%2f/app1_q/get", get, { full: 200, producer: 403, consumer: 403, monitor: 200, isolated: 200 }],
  ["bind app1_x to app1_q", "POST", "/api/bindings/%2f/e/app1_x/q/app1_q", { routing_key: "r" }, { full: 201, producer: 403, consumer: 403, monitor: 403, isolated: 201 }],
  ["bind orders to jobs", "POST", "/api/bindings/%2f/e/orders/q/jobs", { routing_key: "r" }, { full: 201, producer: 403, consumer: 403, monitor: 403, isolated: 403 }],
  ["purge orders-1", "DELETE", "/api/queues/%2f/orders-1/contents", undefined, { full: 204, producer: 403, consumer: 204, monitor: 204, isolated: 403 }],
  ["delete jobs", "DELETE", "/api/queues/%2f/jobs", undefined, { full: 204, producer: 403, consumer: 403, monitor: 403, isolated: 403 }],
];

describe("the spec's permission profiles over HTTP", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    for (const [profile, [configure, write, read]] of Object.entries(PROFILES)) {
      await api("PUT", `/api/users/${profile}`, { password: "pw", tags: "management" });
      assert.equal((await api("PUT", `/api/permissions/%2f/${profile}`, { configure, write, read })).status, 204);
    }
  });
  after(async () => broker.close());

  /** Fresh topology for each profile, so one profile's deletes do not change the next one's answers. */
  async function topology(): Promise<void> {
    for (const x of ["orders", "other", "app1_x"]) await api("PUT", `/api/exchanges/%2f/${x}`, { type: "fanout" });
    for (const q of ["orders-1", "jobs", "app1_q"]) {
      await api("PUT", `/api/queues/%2f/${q}`, {});
      await api("POST", "/api/exchanges/%2f/amq.default/publish", publish(q));
    }
    for (const q of ["app1_new", "app2_q"]) await api("DELETE", `/api/queues/%2f/${q}`);
    await api("DELETE", "/api/exchanges/%2f/app1_x2");
  }

  for (const profile of Object.keys(PROFILES) as Profile[]) {
    it(`${profile}: ${PROFILES[profile].join(" ")}`, async () => {
      await topology();
      const failures: string[] = [];
      for (const [what, method, path, body, expected] of CASES) {
        const res = await api(method, path, body, `${profile}:pw`);
        if (res.status !== expected[profile]) failures.push(`${what}: ${res.status}, expected ${expected[profile]} (${JSON.stringify(res.json)})`);
        else if (res.status === 403) assert.equal(res.json.error, "not_authorised", what);
      }
      assert.deepEqual(failures, []);
    });
  }

  it("agrees with what an AMQP client of the same user may do", async () => {
    await topology();
    const conn = await amqp.connect(broker.urlFor("producer", "pw"));
    conn.on("error", () => {});
    const ch = await conn.createConfirmChannel();
    ch.on("error", () => {});
    ch.publish("orders", "k", Buffer.from("ok"));
    await ch.waitForConfirms();
    await assert.rejects(ch.checkQueue("jobs"), /ACCESS_REFUSED - access to queue 'jobs' in vhost '\/' refused for user 'producer'/);
    await conn.close().catch(() => {});
  });
});
