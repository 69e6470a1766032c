/**
 * A three-node spread cluster (`--cluster-mode spread`) for one test file: real etcd, three real
 * `node bin/coney.js` processes, each serving AMQP (0-9-1 and 1.0), HTTP, MQTT and STOMP on its
 * own ports. Started before the file's tests once every node serves with links to both others;
 * every client a test opens through it is closed (bounded) and every process killed after them,
 * and the nodes' logs are printed when one of its tests (declared with `sc.it`) failed.
 */
import { after, before, it } from "node:test";
import { join } from "node:path";
import amqp, { type ChannelModel } from "amqplib";
import { TestCluster, freePort, type NodeInfo } from "./cluster-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";

export const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

export interface ApiAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
}

export interface SpreadCluster {
  readonly cluster: TestCluster;
  node(i: number): NodeInfo;
  /** An amqplib connection to node `i` (with an 'error' listener; closed after the file). */
  connect(i: number): Promise<ChannelModel>;
  /** An HTTP request to node `i`'s management API as guest. */
  api(i: number, method: string, path: string, body?: unknown, user?: string): Promise<ApiAnswer>;
  /** Resolves once every node's /api/queues/%2F/<name> answers `status`. */
  seenEverywhere(name: string, status: 200 | 404): Promise<void>;
  /** A test of the file (node:test's `it`); a failure prints the nodes' logs after the file. */
  it(name: string, fn: () => Promise<void>): void;
  /** Run (bounded) after the tests, before the cluster stops. */
  onClose(f: () => unknown): void;
  /** Node `i`'s stream port (with `streams`), as its management API lists it; resolves once bound. */
  streamPort(i: number): Promise<number>;
}

/** Options of a spread cluster: its lease (s), and `streams`: every node serves the stream protocol on a port of its own. */
export interface SpreadOptions {
  readonly leaseTtl?: number;
  readonly streams?: boolean;
}

export function spreadCluster(opts: SpreadOptions = {}): SpreadCluster {
  const cluster = new TestCluster(3, opts.leaseTtl ?? 5, ["--cluster-mode", "spread", ...(opts.streams === true ? ["--stream-port", "0", "--stream-advertised-host", "127.0.0.1"] : [])]);
  const closers: Array<() => unknown> = [];
  let failed = false;

  const node = (i: number): NodeInfo => cluster.nodes[i]!;
  const api = async (i: number, method: string, path: string, body?: unknown, user = "guest:guest"): Promise<ApiAnswer> => {
    const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(user).toString("base64")}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(`http://127.0.0.1:${node(i).httpPort}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    let json: unknown = null;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: r.status, text, json };
  };
  const serving = (n: NodeInfo): Promise<void> =>
    eventually(async () => {
      if (!(n.log.includes('"msg":"Coney started"') && n.log.split("spread cluster: link to a node up").length - 1 >= 2)) return false;
      try {
        return (await fetch(`http://127.0.0.1:${n.httpPort}/api/overview`, { headers: AUTH, signal: AbortSignal.timeout(3000) })).ok;
      } catch {
        return false;
      }
    }, 40_000, `${n.name} serving with its links`);

  before(async () => {
    await cluster.startEtcd();
    for (let i = 0; i < 3; i++) {
      cluster.nodes.push({ name: `node${i}@test`, amqpPort: await freePort(), httpPort: await freePort(), mqttPort: await freePort(), stompPort: await freePort(), dataDir: join(cluster.dir, `node${i}`), proc: null, log: "" });
    }
    for (const n of cluster.nodes) cluster.startNode(n);
    await Promise.all(cluster.nodes.map((n) => serving(n)));
  });
  after(async () => {
    for (const c of closers) await withTimeout(Promise.resolve(c()), 2000, "a client's close").catch(() => {});
    if (failed) console.error(cluster.logs());
    await cluster.close();
  });

  return {
    cluster,
    node,
    async connect(i) {
      const c = await amqp.connect(cluster.url(node(i)));
      c.on("error", () => {});
      closers.push(() => c.close());
      return c;
    },
    api,
    async seenEverywhere(name, status) {
      for (let i = 0; i < 3; i++) await eventually(async () => (await api(i, "GET", `/api/queues/%2F/${encodeURIComponent(name)}`)).status === status, 10_000, `${name} answering ${status} on node${i}`);
    },
    it(name, fn) {
      it(name, async () => {
        try {
          await fn();
        } catch (err) {
          failed = true;
          throw err;
        }
      });
    },
    onClose: (f) => void closers.push(f),
    async streamPort(i) {
      // The node's own listener as its management API lists it now (a node that fenced and booted again has a new one).
      let port = 0;
      await eventually(async () => {
        const r = await api(i, "GET", "/api/overview").catch(() => null);
        const listeners = ((r?.json ?? {}) as { listeners?: Array<{ node: string; protocol: string; port: number }> }).listeners ?? [];
        port = listeners.find((l) => l.node === node(i).name && l.protocol === "stream")?.port ?? 0;
        return port > 0;
      }, 20_000, `node${i}'s stream port`);
      return port;
    },
  };
}
