/**
 * The Prometheus listener (RabbitMQ's port 15692): GET /metrics, /metrics/per-object and
 * /metrics/detailed, and Coney's aggregate of every node, /metrics/cluster and
 * /metrics/cluster/per-object (cluster-scrape.ts), over HTTPS when the management API uses TLS.
 * A plain node:http server: a few read-only paths need no framework, and a scrape should cost
 * only the reading of figures.
 *
 * Responses are gzip-compressed when the scraper accepts it (Prometheus always does), off the
 * event loop in libuv's thread pool.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { gzip, constants as zlibConstants } from "node:zlib";
import type { Logger } from "../logging/logger.js";
import { tlsServerOptions, type TlsFiles } from "../tls/tls-files.js";
import { CONTENT_TYPE } from "./exposition.js";
import type { ClusterRole } from "./cluster-families.js";
import type { ListenerStatuses } from "../listeners/listener-status.js";
import { listenOn } from "../listeners/listen-on.js";
import { RuntimeMonitor, type ClusterEndpointName, type EndpointName, type NodeIdentity } from "./node-families.js";
import { ClusterScrape } from "./cluster-scrape.js";
import type { PeerMetrics } from "./peer-metrics.js";
import { renderAggregated, renderDetailed, renderNodeOnly, renderPerObject } from "./render.js";
import { ScrapeState, type MetricsSource } from "./scrape-state.js";

export interface MetricsListenerOptions {
  /** 0 binds an ephemeral port. */
  readonly port: number;
  /** "" binds every interface. */
  readonly bind: string;
  /** HTTPS with these files; null for plain HTTP. */
  readonly tls: TlsFiles | null;
}

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;

/** One endpoint's body; `url` carries /metrics/detailed's query. */
export type Render = (endpoint: EndpointName | ClusterEndpointName, url: URL, runtime: RuntimeMonitor) => string | Promise<string>;

/**
 * The broker's endpoints (a single node, a worker, a spread node, or a replicated cluster's
 * leader). `peers`: the other nodes of `coney --workers N` or a spread cluster, asked by the
 * aggregate and answered from here while this listener runs.
 */
export function listenMetrics(source: MetricsSource, opts: MetricsListenerOptions, logger: Logger, peers: PeerMetrics | null = null): Promise<MetricsListener> {
  const cluster = new ClusterScrape(source, peers);
  // The aggregate's readings (another node's, and this node's own part) keep the event-loop window: it is /metrics's scraper's.
  const own = (endpoint: "aggregated" | "per-object", runtime: RuntimeMonitor): string =>
    endpoint === "aggregated" ? renderAggregated(new ScrapeState(source), runtime, false) : renderPerObject(new ScrapeState(source), runtime, false);
  return listenExposition(
    (endpoint, url, runtime) => {
      const state = new ScrapeState(source);
      if (endpoint === "aggregated") return renderAggregated(state, runtime);
      if (endpoint === "per-object") return renderPerObject(state, runtime);
      if (endpoint === "cluster") return cluster.render("aggregated", () => own("aggregated", runtime));
      if (endpoint === "cluster-per-object") return cluster.render("per-object", () => own("per-object", runtime));
      const vhosts = url.searchParams.getAll("vhost");
      return renderDetailed(state, new Set(url.searchParams.getAll("family")), vhosts.length > 0 ? new Set(vhosts) : null);
    },
    opts,
    logger,
    peers === null ? undefined : (runtime) => {
      peers.own = (endpoint) => own(endpoint, runtime);
      return () => {
        peers.own = null;
      };
    },
  );
}

/** A cluster follower's endpoints: its identity, role and runtime only (render.ts, renderNodeOnly). */
export function listenNodeMetrics(who: NodeIdentity, role: () => ClusterRole, listeners: ListenerStatuses, opts: MetricsListenerOptions, logger: Logger): Promise<MetricsListener> {
  // It holds no broker figures (they are the leader's), so its aggregate is its own node-only body.
  const nodeOnly = (endpoint: EndpointName | ClusterEndpointName): EndpointName => (endpoint === "cluster" ? "aggregated" : endpoint === "cluster-per-object" ? "per-object" : endpoint);
  return listenExposition((endpoint, _url, runtime) => renderNodeOnly(who, role(), listeners(), nodeOnly(endpoint), runtime), opts, logger);
}

/** `attach`: what runs once the listener is bound, with its runtime monitor; returns what undoes it at close. */
async function listenExposition(render: Render, opts: MetricsListenerOptions, logger: Logger, attach?: (runtime: RuntimeMonitor) => () => void): Promise<MetricsListener> {
  const runtime = new RuntimeMonitor();
  const failed = (res: ServerResponse, err: unknown): void => {
    logger.error("metrics scrape failed", { err: err instanceof Error ? err.message : String(err) });
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("internal error\n");
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    try {
      const pending = serve(req, res, render, runtime);
      if (pending !== undefined) pending.catch((err: unknown) => failed(res, err));
    } catch (err) {
      failed(res, err);
    }
  };
  const server: Server = opts.tls ? createHttpsServer(tlsServerOptions(opts.tls), handle) : createHttpServer(handle);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  const bound = await listenOn(server, opts.port, opts.bind);
  runtime.start();
  const detach = attach?.(runtime);
  return {
    port: bound,
    async close() {
      detach?.();
      runtime.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ENDPOINTS: Readonly<Record<string, EndpointName | ClusterEndpointName>> = {
  "/metrics": "aggregated",
  "/metrics/per-object": "per-object",
  "/metrics/detailed": "detailed",
  "/metrics/cluster": "cluster",
  "/metrics/cluster/per-object": "cluster-per-object",
};

/** Resolves once an aggregate's answer is sent (the others are sent at once). */
function serve(req: IncomingMessage, res: ServerResponse, render: Render, runtime: RuntimeMonitor): Promise<void> | undefined {
  const url = new URL(req.url ?? "/", "http://metrics");
  const path = url.pathname.endsWith("/") && url.pathname.length > 1 ? url.pathname.slice(0, -1) : url.pathname;
  const endpoint = Object.hasOwn(ENDPOINTS, path) ? ENDPOINTS[path]! : null;
  if (endpoint === null) {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Not Found: the Prometheus endpoints are /metrics, /metrics/per-object, /metrics/detailed, /metrics/cluster and /metrics/cluster/per-object\n");
    return undefined;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" });
    res.end("Method Not Allowed\n");
    return undefined;
  }
  const body = render(endpoint, url, runtime);
  if (typeof body === "string") {
    send(req, res, body);
    return undefined;
  }
  return body.then((text) => send(req, res, text));
}

function send(req: IncomingMessage, res: ServerResponse, body: string): void {
  const headers: Record<string, string> = { "content-type": CONTENT_TYPE, vary: "accept-encoding" };
  const accepts = req.headers["accept-encoding"];
  if (typeof accepts === "string" && /\bgzip\b/.test(accepts)) {
    gzip(body, { level: zlibConstants.Z_BEST_SPEED }, (err, zipped) => {
      if (err) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("compression failed\n");
        return;
      }
      res.writeHead(200, { ...headers, "content-encoding": "gzip", "content-length": String(zipped.length) });
      res.end(req.method === "HEAD" ? undefined : zipped);
    });
    return;
  }
  res.writeHead(200, { ...headers, "content-length": String(Buffer.byteLength(body)) });
  res.end(req.method === "HEAD" ? undefined : body);
}
