/**
 * Spread clusters (`--cluster-mode spread`) for tests: a real etcd and real `node bin/coney.js`
 * nodes through TestCluster (cluster-fixture.ts), and the events a test waits for — a node
 * serving (started, with a link up to every other node since a log offset), a queue's home as
 * the management API names it. Two shapes, one set of pieces:
 * - `spreadCluster(options)`: a cluster for one test file, started before its tests once every
 *   node serves with its links; every node serves AMQP (0-9-1 and 1.0), HTTP, MQTT and STOMP on
 *   its own ports; nodes listed in `viaProxy` reach etcd through a TCP proxy the test can cut.
 *   Every client a test opens through it is closed (bounded) and every process killed after the
 *   file; the nodes' logs are printed when one of its tests (declared with `sc.it`) failed.
 * - `spreadSuite(size)` (the chaos cases, the benchmark test): the cluster built but not started,
 *   so the test starts it (`startSpread`) inside its own time budget.
 */
import { after, before, it, type TestContext } from "node:test";
import { join } from "node:path";
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import amqp, { type ChannelModel } from "amqplib";
import { TestCluster, freePort, type NodeInfo } from "./cluster-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";

export const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

export interface ApiAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
}

/** GET /api/queues/%2F on node `n`: each queue with its home (`node`); [] when the node does not answer. */
export async function queuesOf(n: NodeInfo): Promise<Array<{ name: string; node: string; messages?: number }>> {
  const r = await fetch(`http://${n.host ?? "127.0.0.1"}:${n.httpPort}/api/queues/%2F`, { headers: AUTH, signal: AbortSignal.timeout(3000) });
  return r.ok ? ((await r.json()) as Array<{ name: string; node: string }>) : [];
}

/**
 * Resolves once node `n` says, in its log since offset `from`, that Coney started and that a link
 * to each of the other `peers` nodes came up, and its management API answers.
 */
export function serving(n: NodeInfo, peers: number, from = 0, ms = 40_000): Promise<void> {
  return eventually(async () => {
    const log = n.log.slice(from);
    return log.includes('"msg":"Coney started"') && log.split("spread cluster: link to a node up").length - 1 >= peers && (await queuesOf(n).catch(() => null)) !== null;
  }, ms, `${n.name} serving with its links`);
}

/** A TCP proxy to etcd that a test can cut: a node behind it is cut from etcd, the others are not. */
export class EtcdProxy {
  private readonly sockets = new Set<Socket>();
  private cut = false;
  private server: Server | null = null;

  /** Listens on an ephemeral loopback port; resolves with the URL a node gives as its etcd endpoint. */
  async start(target: string): Promise<string> {
    const url = new URL(target);
    this.server = createServer((client) => {
      if (this.cut) return void client.destroy();
      const upstream = netConnect(Number(url.port), url.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("error", () => {});
        s.once("close", () => this.sockets.delete(s));
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.once("close", () => upstream.destroy());
      upstream.once("close", () => client.destroy());
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", () => r()));
    const a = this.server.address();
    return `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
  }

  /** Every connection through it dropped, new ones refused. */
  cutOff(): void {
    this.cut = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.cut = false;
  }

  close(): void {
    this.cutOff();
    this.server?.close();
  }
}

/** The spread cluster's nodes are `node<i>@test`; the lease is short so a dead node's member key goes soon. */
export function spreadTestCluster(size: number, leaseTtl = 3, extraArgs: readonly string[] = []): TestCluster {
  return new TestCluster(size, leaseTtl, ["--cluster-mode", "spread", ...extraArgs]);
}

/** Starts etcd and every node; resolves once each serves with links to all the others. */
export async function startSpread(cluster: TestCluster): Promise<void> {
  await cluster.startProcesses();
  await Promise.all(cluster.nodes.map((n) => serving(n, cluster.size - 1)));
}

/** An amqplib connection with an 'error' listener (its node may die under it: without one amqplib's throw keeps the file alive). */
async function connectTo(cluster: TestCluster, n: NodeInfo, into: ChannelModel[]): Promise<ChannelModel> {
  const c = await amqp.connect(cluster.url(n));
  c.on("error", () => {});
  into.push(c);
  return c;
}

/**
 * A spread cluster for one suite, not started (`startSpread` in the test): `connect(n)` opens an
 * amqplib connection to node `n` that is closed after the suite with the cluster; the nodes' logs
 * are printed unless `pass()` was called.
 */
export function spreadSuite(size: number, leaseTtl = 3, extraArgs: readonly string[] = []): { cluster: TestCluster; connect(n: NodeInfo): Promise<ChannelModel>; pass(): void } {
  const cluster = spreadTestCluster(size, leaseTtl, extraArgs);
  const conns: ChannelModel[] = [];
  let passed = false;
  after(async () => {
    await Promise.all(conns.map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    if (!passed) console.error(cluster.logs());
    await cluster.close();
  });
  return { cluster, connect: (n) => connectTo(cluster, n, conns), pass: () => void (passed = true) };
}

/** Queues homed on each node. */
export interface HomedQueues {
  /** Every queue, node by node. */
  readonly all: string[];
  readonly homedOn: Map<NodeInfo, string[]>;
}

/**
 * `perNode` durable queues `<prefix>-<i>-<k>` declared through each node i (client-local: homed
 * there); resolves once every node's /api/queues names each one's home.
 */
export async function declareHomed(cluster: TestCluster, connect: (n: NodeInfo) => Promise<ChannelModel>, prefix: string, perNode: number): Promise<HomedQueues> {
  const homes = new Map<string, string>();
  const homedOn = new Map<NodeInfo, string[]>();
  for (const [i, n] of cluster.nodes.entries()) {
    const ch = await (await connect(n)).createChannel();
    const names = Array.from({ length: perNode }, (_, k) => `${prefix}-${i}-${k}`);
    for (const q of names) {
      await ch.assertQueue(q, { durable: true });
      homes.set(q, n.name);
    }
    homedOn.set(n, names);
    await ch.close();
  }
  await homesKnown(cluster, homes);
  return { all: [...homes.keys()], homedOn };
}

/** Waits until every node's /api/queues names the home of each of `homes` (queue → node name). */
export async function homesKnown(cluster: TestCluster, homes: ReadonlyMap<string, string>, ms = 20_000): Promise<void> {
  for (const n of cluster.nodes) {
    await eventually(async () => {
      const list = await queuesOf(n).catch(() => []);
      return [...homes].every(([q, home]) => list.find((x) => x.name === q)?.node === home);
    }, ms, `every queue with its home in ${n.name}'s /api/queues`);
  }
}

/** When one of `survivors` logged that it serves `store` adopted (spread-stores.ts) at or after `since`, as epoch ms; undefined if none did. */
export function adoptionTime(survivors: readonly NodeInfo[], store: string, since = 0): number | undefined {
  const times: number[] = [];
  for (const n of survivors) {
    for (const line of n.log.split("\n")) {
      if (!line.includes('"msg":"spread cluster: serving an adopted store"') || !line.includes(`"store":"${store}"`)) continue;
      const at = Date.parse((JSON.parse(line.slice(line.indexOf("{"))) as { time: string }).time);
      if (at >= since) times.push(at);
    }
  }
  return times.length === 0 ? undefined : Math.min(...times);
}

export interface SpreadClusterOptions {
  /** Nodes (3). */
  readonly size?: number;
  /** The etcd lease in seconds (5). */
  readonly leaseTtl?: number;
  /** More arguments for every node (e.g. `--cluster-tls true` and its certificate). */
  readonly extraArgs?: readonly string[];
  /** Every node also serves MQTT and STOMP on ports of its own (true). */
  readonly protocols?: boolean;
  /** The nodes (by index) that reach etcd through `proxy`, which the test can cut. */
  readonly viaProxy?: readonly number[];
  /** Every node serves the stream protocol on a port of its own (false); see `streamPort`. */
  readonly streams?: boolean;
  /**
   * Node `i` binds and advertises 127.0.0.(i+1), an address of its own as on machines of their own
   * (false: every node on 127.0.0.1). `api` then asks each node at its address; `connect` still
   * dials 127.0.0.1 (node 0 only).
   */
  readonly ownAddresses?: boolean;
  /** Every node serves Prometheus on a port of its own, `metricsPort` (false: none listens). */
  readonly metrics?: boolean;
}

export interface SpreadCluster {
  readonly cluster: TestCluster;
  /** The proxy the `viaProxy` nodes reach etcd through (started only when some do). */
  readonly proxy: EtcdProxy;
  node(i: number): NodeInfo;
  /** An amqplib connection to node `i` (with an 'error' listener; closed after the file). */
  connect(i: number): Promise<ChannelModel>;
  /** An HTTP request to node `i`'s management API as guest. */
  api(i: number, method: string, path: string, body?: unknown, user?: string): Promise<ApiAnswer>;
  /** Resolves once every node's /api/queues/%2F/<name> answers `status`. */
  seenEverywhere(name: string, status: 200 | 404): Promise<void>;
  /** Starts node `i` again on its data dir (through the proxy if it is behind it). */
  start(i: number): void;
  /** Resolves once node `i` serves with links to every other node, looking at its log from `from`. */
  serving(i: number, from?: number): Promise<void>;
  /** A test of the file (node:test's `it`); a failure prints the nodes' logs after the file. */
  it(name: string, fn: (t: TestContext) => Promise<void>): void;
  /** Run (bounded) after the tests, before the cluster stops. */
  onClose(f: () => unknown): void;
  /** Node `i`'s stream port (with `streams`), as its management API lists it; resolves once bound. */
  streamPort(i: number): Promise<number>;
}

export function spreadCluster(options: SpreadClusterOptions = {}): SpreadCluster {
  const size = options.size ?? 3;
  const streamArgs = options.streams === true ? ["--stream-port", "0", "--stream-advertised-host", "127.0.0.1"] : [];
  const cluster = spreadTestCluster(size, options.leaseTtl ?? 5, [...(options.extraArgs ?? []), ...streamArgs]);
  const proxy = new EtcdProxy();
  const viaProxy = new Set(options.viaProxy ?? []);
  let proxied = "";
  const closers: Array<() => unknown> = [];
  const conns: ChannelModel[] = [];
  let failed = false;

  const node = (i: number): NodeInfo => cluster.nodes[i]!;
  const api = async (i: number, method: string, path: string, body?: unknown, user = "guest:guest"): Promise<ApiAnswer> => {
    const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(user).toString("base64")}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(`http://${node(i).host ?? "127.0.0.1"}:${node(i).httpPort}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    let json: unknown = null;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: r.status, text, json };
  };
  const start = (i: number): void => {
    const direct = cluster.etcdUrl;
    if (viaProxy.has(i)) cluster.etcdUrl = proxied;
    try {
      cluster.startNode(node(i));
    } finally {
      cluster.etcdUrl = direct;
    }
  };

  before(async () => {
    await cluster.startEtcd();
    if (viaProxy.size > 0) proxied = await proxy.start(cluster.etcdUrl);
    const protocols = options.protocols ?? true;
    for (let i = 0; i < size; i++) {
      const more = protocols ? { mqttPort: await freePort(), stompPort: await freePort() } : {};
      const own = options.ownAddresses === true ? { host: `127.0.0.${i + 1}`, extraArgs: ["--bind", `127.0.0.${i + 1}`, "--advertise-address", `127.0.0.${i + 1}`] } : {};
      const metrics = options.metrics === true ? { metricsPort: await freePort() } : {};
      cluster.nodes.push({ name: `node${i}@test`, amqpPort: await freePort(), httpPort: await freePort(), ...more, ...metrics, ...own, dataDir: join(cluster.dir, `node${i}`), proc: null, log: "" });
    }
    for (let i = 0; i < size; i++) start(i);
    await Promise.all(cluster.nodes.map((n) => serving(n, size - 1)));
  });
  after(async () => {
    for (const c of closers) await withTimeout(Promise.resolve(c()), 2000, "a client's close").catch(() => {});
    await Promise.all(conns.map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    if (failed) console.error(cluster.logs());
    proxy.close();
    await cluster.close();
  });

  return {
    cluster,
    proxy,
    node,
    connect: (i) => connectTo(cluster, node(i), conns),
    api,
    async seenEverywhere(name, status) {
      for (let i = 0; i < size; i++) await eventually(async () => (await api(i, "GET", `/api/queues/%2F/${encodeURIComponent(name)}`)).status === status, 10_000, `${name} answering ${status} on node${i}`);
    },
    start,
    serving: (i, from = 0) => serving(node(i), size - 1, from),
    it(name, fn) {
      it(name, async (t) => {
        try {
          await fn(t);
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
