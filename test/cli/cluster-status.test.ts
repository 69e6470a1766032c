// coneyctl cluster_status, as rabbitmqctl cluster_status: the real coneyctl against a real broker,
// one node and `coney --workers 2` (every node listed, running, with its own listeners labelled by
// node, each with its own version), in text and as JSON, checked against what /api/nodes and /api/overview say;
// a replicated cluster's follower's version from its registration (test/cluster/cluster-status-versions.test.ts).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "../workers/workers-harness.js";
import { pinnedApis } from "../workers/pinned-workers.js";
import { ctl, run } from "./run-coneyctl.js";
import { clusterStatus } from "../../src/cli/commands/cluster-status.js";
import type { Item } from "../../src/cli/list-columns.js";

const auth = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };
const getJson = async <T>(base: string, path: string): Promise<T> => (await (await fetch(`${base}${path}`, { headers: auth })).json()) as T;

/** The lines of one section of the text output (between its title and the next blank line after its body). */
function section(stdout: string, title: string): string[] {
  const lines = stdout.split("\n");
  const at = lines.indexOf(title);
  assert.ok(at >= 0, `section ${title} in:\n${stdout}`);
  const body: string[] = [];
  for (let i = at + 2; i < lines.length && lines[i] !== ""; i++) body.push(lines[i]!);
  return body;
}

describe("coneyctl cluster_status", () => {
  describe("one node", () => {
    let broker: TestBroker;
    before(async () => {
      broker = await startTestBroker();
    });
    after(() => broker.close());

    it("prints rabbitmqctl's sections: the node as disk and running node, its version, listeners with their purpose, the feature flags", async () => {
      const r = await ctl(broker, ["cluster_status"]);
      assert.equal(r.code, 0, r.stderr);
      const overview = await getJson<{ node: string; cluster_name: string; listeners: Array<{ protocol: string; ip_address: string }> }>(broker.httpUrl, "/api/overview");
      const amqpIp = overview.listeners.find((l) => l.protocol === "amqp")!.ip_address;
      assert.match(r.stdout, new RegExp(`^Cluster status of node ${overview.node.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\.\\.\\.$`, "m"));
      assert.deepEqual(section(r.stdout, "Basics"), [`Cluster name: ${overview.cluster_name}`]);
      assert.deepEqual(section(r.stdout, "Disk Nodes"), [overview.node]);
      assert.deepEqual(section(r.stdout, "Running Nodes"), [overview.node]);
      assert.match(section(r.stdout, "Versions")[0]!, new RegExp(`^${overview.node.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: Coney \\d+\\.\\d+\\.\\d+ on Node\\.js \\d+\\.\\d+`));
      assert.deepEqual(section(r.stdout, "Maintenance status"), [`Node: ${overview.node}, status: not under maintenance`]);
      assert.deepEqual(section(r.stdout, "Alarms"), ["(none)"]);
      assert.deepEqual(section(r.stdout, "Network Partitions"), ["(none)"]);
      assert.ok(section(r.stdout, "Listeners").includes(`Node: ${overview.node}, interface: ${amqpIp}, port: ${broker.amqpPort}, protocol: amqp, purpose: AMQP 0-9-1`), r.stdout);
      assert.ok(section(r.stdout, "Feature flags").includes("Flag: quorum_queue, state: enabled"), r.stdout);
    });

    it("--formatter json: the same as one object", async () => {
      const r = await ctl(broker, ["cluster_status", "--formatter", "json"]);
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout) as { disk_nodes: string[]; running_nodes: string[]; listeners: Record<string, Array<{ port: number; protocol: string }>>; feature_flags: Array<{ name: string }> };
      const nodes = await getJson<Array<{ name: string }>>(broker.httpUrl, "/api/nodes");
      assert.deepEqual(s.disk_nodes, nodes.map((n) => n.name));
      assert.deepEqual(s.running_nodes, nodes.map((n) => n.name));
      assert.ok(s.listeners[nodes[0]!.name]!.some((l) => l.protocol === "amqp" && l.port === broker.amqpPort));
      assert.ok(s.feature_flags.some((f) => f.name === "stream_queue"));
    });
  });

  describe("coney --workers 2", () => {
    let p: WorkersProcess;
    before(async () => {
      p = await startWorkers(["--in-memory"]);
      // Both workers answer the API (each then lists the other's listeners).
      for (const a of await pinnedApis(p.httpPort)) a.close();
    });
    after(() => p.close());

    it("lists both workers as running nodes, each one's listeners under its own name, from either worker", async () => {
      const seen = new Set<string>();
      await eventually(async () => {
        const r = await run(["--port", String(p.httpPort), "cluster_status", "--formatter", "json"]);
        assert.equal(r.code, 0, r.stderr);
        const s = JSON.parse(r.stdout) as { running_nodes: string[]; listeners: Record<string, Array<{ protocol: string }>>; versions: Record<string, { coney_version: string; node_version: string }> };
        if (s.running_nodes.length !== 2) return false;
        for (const n of s.running_nodes) assert.ok(s.listeners[n]?.some((l) => l.protocol === "http/prometheus"), `${n}'s own listeners: ${JSON.stringify(s.listeners)}`);
        // Every worker's own version (each answers its record with its applications), as rabbitmqctl lists every node's.
        assert.deepEqual(Object.keys(s.versions).sort(), [...s.running_nodes].sort(), `every node's version: ${JSON.stringify(s.versions)}`);
        for (const v of Object.values(s.versions)) {
          assert.match(v.coney_version, /^\d+\.\d+\.\d+/);
          assert.equal(v.node_version, process.versions.node);
        }
        const text = await run(["--port", String(p.httpPort), "cluster_status"]);
        const asked = /^Cluster status of node (.+) \.\.\.$/m.exec(text.stdout)?.[1];
        if (asked !== undefined) seen.add(asked);
        return seen.size === 2;
      }, 30_000, "both workers asked and listing both");
    });

    it("a worker that does not answer in time is listed with the version it said it runs when it came to serve", async () => {
      const apis = await pinnedApis(p.httpPort);
      try {
        const w1 = apis[1]!.node;
        const pid = p.lines.filter((l) => l.msg === "worker started" && l["worker"] === "w1").pop()?.["pid"] as number;
        // Frozen well inside the primary's heartbeat limit (3 missed beats of 1 s): asked, it does not answer.
        process.kill(pid, "SIGSTOP");
        let nodes: Item[];
        try {
          nodes = (await apis[0]!.request("GET", "/api/nodes")).json as Item[];
        } finally {
          process.kill(pid, "SIGCONT");
        }
        const silent = nodes.find((n) => n["name"] === w1)!;
        assert.equal(silent["running"], false, "not answered in time");
        assert.equal(silent["os_pid"], undefined, "none of its process figures");
        // What `coneyctl cluster_status` makes of that answer (its own function, on the real records).
        const overview = (await apis[0]!.request("GET", "/api/overview")).json as Item;
        const s = clusterStatus(overview, nodes, []);
        assert.deepEqual(Object.keys(s.versions).sort(), apis.map((a) => a.node).sort(), JSON.stringify(s.versions));
        assert.equal(s.versions[w1]!.node_version, process.versions.node);
      } finally {
        for (const a of apis) a.close();
      }
    });
  });
});
