// Health checks a load balancer can use on a cluster: /api/health/checks/cluster-leader is 200
// only on the leader's port, and each follower answers it (and node-is-quorum-critical) itself,
// authenticating against the users replicated from the leader; other requests still reach the
// leader through the follower. node-is-quorum-critical follows the in-sync set as nodes die.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { TestCluster, type NodeInfo } from "./cluster-fixture.js";
import { eventually } from "../helpers/wait.js";

const basic = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
const GUEST = basic("guest", "guest");

/** One request on a connection of its own, as a load balancer's check is made. */
function check(n: NodeInfo, path: string, authorization: string | null = GUEST): Promise<{ status: number; body: Record<string, unknown> | null; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: n.httpPort, path, agent: false, timeout: 5000, headers: authorization === null ? {} : { authorization } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text === "" ? null : (JSON.parse(text) as Record<string, unknown>), headers: res.headers }));
    });
    req.on("timeout", () => req.destroy(new Error(`${path} on ${n.name} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

describe("cluster health checks", { timeout: 100_000 }, () => {
  const cluster = new TestCluster(3);
  let passed = 0;
  before(async () => {
    await cluster.start();
    await cluster.waitForInSync(3);
  });
  after(async () => {
    if (passed < 3) console.error(cluster.logs());
    await cluster.close();
  });

  it("says which node leads: 200 on the leader, 503 naming the leader on each follower", async () => {
    const leader = await cluster.waitForLeader();
    assert.deepEqual((await check(leader, "/api/health/checks/cluster-leader")).body, { status: "ok" });
    for (const f of cluster.nodes.filter((n) => n !== leader)) {
      const r = await check(f, "/api/health/checks/cluster-leader");
      assert.equal(r.status, 503);
      assert.deepEqual(r.body, { status: "failed", reason: `${f.name} is not the cluster leader; the leader is ${leader.name}`, leader: leader.name });
      assert.equal(r.headers["connection"], "close");
      // Anything else through the follower is the leader's answer.
      const overview = await check(f, "/api/overview");
      assert.equal(overview.status, 200);
      assert.equal(overview.body?.["node"], leader.name);
    }
    passed++;
  });

  it("authenticates on a follower as the leader does, with the users the leader replicated", async () => {
    const leader = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    const none = await check(follower, "/api/health/checks/cluster-leader", null);
    assert.equal(none.status, 401);
    assert.equal(none.headers["www-authenticate"], 'Basic realm="RabbitMQ Management"');
    const wrong = await check(follower, "/api/health/checks/cluster-leader", basic("guest", "nope"));
    assert.deepEqual([wrong.status, wrong.body], [401, { error: "not_authorized", reason: "Login failed" }]);
    // A user made on the leader: without tags it may not use the management API at all.
    const put = async (tags: string): Promise<void> => {
      const r = await fetch(`http://127.0.0.1:${leader.httpPort}/api/users/lb`, { method: "PUT", headers: { authorization: GUEST, "content-type": "application/json" }, body: JSON.stringify({ password: "lb-secret", tags }) });
      assert.ok(r.ok, `PUT user: ${r.status}`);
    };
    await put("");
    await eventually(async () => (await check(follower, "/api/health/checks/cluster-leader", basic("lb", "lb-secret"))).status === 403, 15_000, "the new user to reach the follower");
    const refused = await check(follower, "/api/health/checks/cluster-leader", basic("lb", "lb-secret"));
    assert.deepEqual(refused.body, { error: "not_authorised", reason: "Not management user" });
    await put("monitoring");
    await eventually(async () => (await check(follower, "/api/health/checks/cluster-leader", basic("lb", "lb-secret"))).status === 503, 15_000, "the monitoring tag to reach the follower");
    passed++;
  });

  it("answers its own checks on every request of a kept-alive connection, and forwards the others", async () => {
    const leader = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    // Three pipelined requests on one connection: forwarded, answered here, forwarded again.
    const req = (path: string): string => `GET ${path} HTTP/1.1\r\nhost: x\r\nauthorization: ${GUEST}\r\n\r\n`;
    const reply = await new Promise<string>((resolve, reject) => {
      let got = "";
      const s = connect({ host: "127.0.0.1", port: follower.httpPort }, () => s.write(req("/api/overview") + req("/api/health/checks/cluster-leader") + req("/api/overview")));
      s.on("data", (d: Buffer) => {
        got += d.toString();
        if ((got.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 3 && got.endsWith("}")) s.end();
      });
      s.on("close", () => resolve(got));
      s.on("error", reject);
      s.setTimeout(10_000, () => s.destroy(new Error("no three responses")));
    });
    assert.deepEqual(reply.match(/HTTP\/1\.1 (\d{3})/g), ["HTTP/1.1 200", "HTTP/1.1 503", "HTTP/1.1 200"]);
    // The same with a keep-alive agent: the socket is reused, and the follower still says it does not lead.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const get = (path: string) => new Promise<number>((resolve, reject) => {
      const r = request({ host: "127.0.0.1", port: follower.httpPort, path, agent, headers: { authorization: GUEST } }, (res) => {
        sockets.add(res.socket);
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      r.on("error", reject);
      r.end();
    });
    assert.equal(await get("/api/overview"), 200);
    assert.equal(await get("/api/health/checks/cluster-leader"), 503);
    assert.equal(await get("/api/whoami"), 200);
    assert.equal(sockets.size, 1, "one kept-alive connection served all three");
    agent.destroy();
    // A request with a body is forwarded whole: a message published through the follower.
    const pub = await fetch(`http://127.0.0.1:${follower.httpPort}/api/exchanges/%2F/amq.default/publish`, {
      method: "POST",
      headers: { authorization: GUEST, "content-type": "application/json" },
      body: JSON.stringify({ properties: {}, routing_key: "no-such-queue", payload: "x", payload_encoding: "string" }),
    });
    assert.equal(pub.status, 200);
    assert.deepEqual(await pub.json(), { routed: false });
    passed++;
  });

  it("reports a follower quorum-critical when it is the last follower in sync, and the leader when none is", async () => {
    const leader = await cluster.waitForLeader();
    const [a, b] = cluster.nodes.filter((n) => n !== leader) as [NodeInfo, NodeInfo];
    assert.equal((await check(a, "/api/health/checks/node-is-quorum-critical")).status, 200);
    assert.equal((await check(leader, "/api/health/checks/node-is-quorum-critical")).status, 200);
    await cluster.kill(b);
    // The leader drops b from the in-sync set once its connection is gone; a is then the only follower in sync.
    let last: Awaited<ReturnType<typeof check>> | null = null;
    await eventually(async () => (last = await check(a, "/api/health/checks/node-is-quorum-critical")).status === 503, 30_000, "a to become critical");
    assert.equal(last!.body?.["status"], "failed");
    assert.match(String(last!.body?.["reason"]), /would leave 0 in-sync followers, fewer than min-in-sync-replicas \(1\)/);
    assert.equal((await check(leader, "/api/health/checks/node-is-quorum-critical")).status, 200);
    await cluster.kill(a);
    await eventually(async () => (last = await check(leader, "/api/health/checks/node-is-quorum-critical")).status === 503, 30_000, "the leader to become critical");
    assert.match(String(last!.body?.["reason"]), /No follower is in sync/);
    passed++;
  });
});
