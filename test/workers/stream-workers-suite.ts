/**
 * A describe's `coney --workers 2` for native stream clients on either worker: the process tree
 * started in the suite's `before` (the stream port advertised on 127.0.0.1), each worker's own
 * stream port read from its "Coney started" line, and the suite's `after` closing every raw and
 * rabbitmq-stream-js-client client the tests opened (a client whose worker was killed is ended).
 * The stream-any and stream-publish-any tests share these hooks and helpers.
 */
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { connect, type Client } from "rabbitmq-stream-js-client";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, workerOf, type WorkersProcess } from "./workers-harness.js";
import { CMD, RC } from "../../src/stream/protocol.js";
import { RawStreamClient, type RawFrame } from "../stream/raw-stream-client.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { endKilledClient, silentStreamLog } from "../stream/killed-stream-client.js";

/** A stream name `prefix-<i>` whose group worker `w` of two leads (the name hash). */
export function ledBy(w: number, prefix: string): string {
  for (let i = 0; ; i++) if (queueGroupOf("/", `${prefix}-${i}`, 2) === w) return `${prefix}-${i}`;
}

/** A Deliver v1's chunk: its subscription id, first offset and message count (the chunk header after the id). */
export function chunkOf(f: RawFrame): { sub: number; first: number; count: number } {
  const b = f.raw.subarray(4);
  return { sub: b[0]!, count: b.readUInt32BE(1 + 4), first: Number(b.readBigUInt64BE(1 + 24)) };
}

export interface StreamWorkersSuite {
  /** The process tree; there once the suite's `before` ran. */
  readonly p: WorkersProcess;
  /** The shared stream port (either worker). */
  readonly sharedPort: number;
  /** A raw client logged in on worker `w`'s own stream port (no Metadata to follow). */
  raw(w: number): Promise<RawStreamClient>;
  /** A rabbitmq-stream-js-client on the shared port (its publishers follow Metadata to the leader). */
  jsClient(): Promise<Client>;
  /** Kills worker `w` (-9) and waits for `c` to be told MetadataUpdate stream_not_available for stream `s`. */
  killLeaderOf(c: RawStreamClient, w: number, s: string): Promise<void>;
}

/** Registers the suite's hooks in the calling describe. */
export function streamWorkersSuite(): StreamWorkersSuite {
  let p: WorkersProcess | undefined;
  let sharedPort = 0;
  let own: number[] = [];
  const clients: Client[] = [];
  const raws: RawStreamClient[] = [];
  const started = (): WorkersProcess => {
    if (p === undefined) throw new Error("the workers start in the suite's before()");
    return p;
  };
  before(async () => {
    p = await startWorkers(["--stream-advertised-host", "127.0.0.1"]);
    const line = p.lines.find((l) => l.msg === "Coney started")!;
    sharedPort = line["stream_port"] as number;
    own = line["stream_worker_ports"] as number[];
    assert.equal(own.length, 2);
  });
  after(async () => {
    for (const r of raws) r.close();
    await Promise.all(clients.map((c) => withTimeout(c.close(), 2000, "a stream client's close").catch(() => {})));
    for (const c of clients) endKilledClient(c);
    await p?.close();
  });
  return {
    get p() {
      return started();
    },
    get sharedPort() {
      return sharedPort;
    },
    async raw(w) {
      const c = await RawStreamClient.login(own[w]!);
      raws.push(c);
      return c;
    },
    async jsClient() {
      const c = await connect({ hostname: "127.0.0.1", port: sharedPort, username: "guest", password: "guest", vhost: "/", heartbeat: 0 }, silentStreamLog);
      clients.push(c);
      return c;
    },
    async killLeaderOf(c, w, s) {
      const nodes = (await started().api("GET", "/api/nodes")).json as Array<{ name: string; os_pid: string }>;
      const leader = nodes.find((n) => workerOf(n.name) === `w${w}`);
      process.kill(Number(leader!.os_pid), "SIGKILL");
      const update = await c.next(CMD.metadataUpdate, 20_000);
      assert.equal(update.body.u16(), RC.streamNotAvailable);
      assert.equal(update.body.str(), s);
    },
  };
}
