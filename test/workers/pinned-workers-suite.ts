/**
 * A describe's `coney --workers 2`, reached worker by worker: the process tree is started in the
 * suite's `before` with one pinned API per worker (pinned-workers.ts), and closed in its `after`
 * with every amqplib connection the tests opened through it. The operator and barrier tests share
 * these hooks rather than each writing them again.
 */
import { after, before } from "node:test";
import amqp, { type ChannelModel } from "amqplib";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { onWorker, pinnedApis, type PinnedApi } from "./pinned-workers.js";

/** An amqplib connection's local port: what the broker's /api/connections calls its `peer_port`. */
export const amqpLocalPort = (c: ChannelModel): number => (c.connection as unknown as { stream: { localPort: number } }).stream.localPort;

export interface PinnedWorkersSuite {
  /** The process tree; there once the suite's `before` ran (read it in tests, not at describe time). */
  readonly p: WorkersProcess;
  /** One pinned API per worker, index i being worker i; filled by the suite's `before`. */
  readonly apis: readonly PinnedApi[];
  /** Connections closed after the suite; a test adds any it opens by other means. */
  readonly open: ChannelModel[];
  /** An amqplib connection to whichever worker the primary picks (`url` defaults to guest on vhost `/`). */
  connect(url?: string): Promise<ChannelModel>;
  /** The same, reopened until it lands on worker `w`. */
  connectOn(w: number, url?: string): Promise<ChannelModel>;
}

/** Registers the suite's hooks in the calling describe; `args` go to `coney --workers 2`. */
export function pinnedWorkersSuite(args: readonly string[] = []): PinnedWorkersSuite {
  let p: WorkersProcess | undefined;
  const apis: PinnedApi[] = [];
  const open: ChannelModel[] = [];
  const started = (): WorkersProcess => {
    if (p === undefined) throw new Error("the workers start in the suite's before()");
    return p;
  };
  const connect = async (url?: string): Promise<ChannelModel> => {
    const c = await amqp.connect(url ?? started().amqpUrl);
    // The broker side may close or die under a test: without a listener amqplib's throw skips its clean-up.
    c.on("error", () => {});
    open.push(c);
    return c;
  };
  before(async () => {
    p = await startWorkers([...args]);
    apis.push(...(await pinnedApis(p.httpPort)));
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => {})));
    for (const a of apis) a.close();
    await p?.close();
  });
  return {
    get p() {
      return started();
    },
    apis,
    open,
    connect,
    connectOn: (w, url) => onWorker(apis, w, () => connect(url), amqpLocalPort, (c) => c.close()),
  };
}
