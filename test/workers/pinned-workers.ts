/**
 * Reaching one chosen worker of `coney --workers 2` in tests. The primary hands each accepted
 * connection to a worker, so a client cannot pick one: an HTTP agent with one kept-alive socket
 * stays on the worker its socket landed on (asked with /api/overview's `node`), and a client's
 * connection is found by its local port (`peer_port` in /api/connections, which lists every
 * worker's connections, each with its `node`). `onWorker` reopens a client until it lands where
 * the test needs it.
 */
import http from "node:http";
import amqp, { type ChannelModel } from "amqplib";
import { eventually } from "../helpers/wait.js";
import { queueGroupOf } from "../../src/broker/index.js";

export interface PinnedReply {
  readonly status: number;
  readonly json: unknown;
  readonly text: string;
}

/** The management API of one worker: every request on the same kept-alive socket. */
export class PinnedApi {
  constructor(
    readonly node: string,
    private readonly agent: http.Agent,
    private readonly port: number,
  ) {}

  request(method: string, path: string, body?: unknown): Promise<PinnedReply> {
    return send(this.agent, this.port, method, path, body);
  }

  close(): void {
    this.agent.destroy();
  }
}

function send(agent: http.Agent, port: number, method: string, path: string, body?: unknown): Promise<PinnedReply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = payload === undefined ? {} : { "content-type": "application/json" };
    const req = http.request({ host: "127.0.0.1", port, path, method, agent, auth: "guest:guest", headers }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, json: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** One pinned API per worker, by node name (`…-w0@host`, `…-w1@host`), sorted so index i is worker i. */
export async function pinnedApis(httpPort: number, workers = 2): Promise<PinnedApi[]> {
  const found = new Map<string, PinnedApi>();
  for (let i = 0; i < 40 && found.size < workers; i++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const node = ((await send(agent, httpPort, "GET", "/api/overview")).json as { node: string }).node;
    if (found.has(node)) agent.destroy();
    else found.set(node, new PinnedApi(node, agent, httpPort));
  }
  if (found.size < workers) throw new Error(`reached ${found.size} of ${workers} workers over HTTP`);
  return [...found.values()].sort((a, b) => a.node.localeCompare(b.node));
}

/**
 * The worker index leading queue `name` of vhost `/` in the primary's first table: its group is the
 * name hash mod G (16), and the first table gives group g to worker g mod N (group-table.ts spread).
 * After a worker's death or a rebalance, read `/api/queues`' `node` instead.
 */
export const leaderIndex = (name: string, workers = 2): number => queueGroupOf("/", name, 16) % workers;

/** The worker index holding the connection from `localPort` (the whole broker's /api/connections names each one's `node`). */
export async function workerOfPort(apis: readonly PinnedApi[], localPort: number): Promise<number> {
  let at = -1;
  await eventually(async () => {
    const list = (await apis[0]!.request("GET", "/api/connections")).json as Array<{ peer_port: number; node: string }>;
    const node = list.find((c) => c.peer_port === localPort)?.node;
    at = apis.findIndex((a) => a.node === node);
    return at >= 0;
  }, 10_000, `the connection from port ${localPort} in /api/connections`);
  return at;
}

/** Opens clients with `open` until one lands on worker `want` (the others are closed); `localPort` reads a client's port. */
export async function onWorker<C>(apis: readonly PinnedApi[], want: number, open: () => Promise<C>, localPort: (c: C) => number, close: (c: C) => Promise<void> | void): Promise<C> {
  for (let i = 0; i < 20; i++) {
    const c = await open();
    if ((await workerOfPort(apis, localPort(c))) === want) return c;
    await close(c);
  }
  throw new Error(`no client landed on worker ${want} in 20 tries`);
}

/** An amqplib connection (its errors swallowed: the broker side may be frozen or die) that landed on worker `want`. */
export async function amqpOnWorker(apis: readonly PinnedApi[], want: number, url: string): Promise<ChannelModel> {
  return onWorker(
    apis,
    want,
    async () => {
      const c = await amqp.connect(url);
      c.on("error", () => {});
      return c;
    },
    (c) => (c as unknown as { connection: { stream: { localPort: number } } }).connection.stream.localPort,
    (c) => c.close(),
  );
}
