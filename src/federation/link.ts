/**
 * A federation link's life (docs/FEDERATION.md, "Link states"): starting → running, or error with
 * a reason and a retry after the upstream's reconnect-delay; stopped for good by the service. It
 * owns its two endpoints (upstream: another broker or this one; downstream: this broker through
 * the local endpoint), counts what it moved, and hands deliveries to the kind-specific part
 * (exchange-link.ts, queue-link.ts), which also declares what the link needs upstream.
 */
import { displayUri } from "../links/amqp-uri.js";
import type { Endpoint, EndpointOptions, LinkDelivery } from "../links/endpoint.js";
import type { Logger } from "../logging/logger.js";
import type { Upstream } from "./upstream-config.js";

export type LinkState = "starting" | "running" | "error";

/** What a link needs from the service that runs it. */
export interface LinkHost {
  readonly logger: Logger;
  /** This broker's cluster name (the downstream's identity in headers and queue names). */
  cluster(): string;
  /** Opens an endpoint for an upstream URI (no host: this broker); `vhost` when the URI names none. */
  openUpstream(uri: string, vhost: string, opts: EndpointOptions): Promise<Endpoint>;
  /** The vhost an upstream URI names (the downstream's `vhost` when it names none). */
  upstreamVhost(uri: string, vhost: string): string;
  /** Opens this broker's endpoint for the downstream vhost. */
  openDownstream(vhost: string, opts: EndpointOptions): Promise<Endpoint>;
  /**
   * The internal exchange suffix (A or B) each exchange link used last, by (vhost, exchange,
   * upstream): kept by the service while the broker runs, so a restarted link alternates.
   */
  readonly suffixes: Map<string, "A" | "B">;
  /** The link's status changed (the API, UI and metrics read it from the link). */
  changed(link: FederationLink): void;
}

export abstract class FederationLink {
  state: LinkState = "starting";
  error: string | null = null;
  /** When the state last changed (ms). */
  since: number;
  /** Messages moved downstream and messages dropped (max-hops / cycle), since the link was made. */
  forwarded = 0;
  dropped = 0;
  /** The URI in use (credentials and query removed, as RabbitMQ's safe_uri), for the API and headers. */
  uri: string;
  /** The vhost of the upstream in use. */
  protected upstreamVhost = "/";
  protected up: Endpoint | null = null;
  protected down: Endpoint | null = null;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Bumped at each (re)start: callbacks of an older generation's endpoints are ignored. */
  protected generation = 0;

  constructor(
    protected readonly host: LinkHost,
    readonly kind: "exchange" | "queue",
    readonly vhost: string,
    /** The downstream exchange or queue. */
    readonly name: string,
    readonly upstream: Upstream,
    /** The policy that federates it (for the connection name). */
    readonly policy: string,
  ) {
    this.since = Date.now();
    this.uri = displayUri(upstream.uris[0] ?? "");
  }

  /** RabbitMQ's connection name for the link's connections. */
  get connectionName(): string {
    return `Federation link (upstream: ${this.upstream.name}, policy: ${this.policy})`;
  }

  /** The upstream exchange or queue this link reads from. */
  abstract get upstreamResource(): string;

  start(): void {
    void this.run();
  }

  /** Stops for good; `cleanup` deletes what the link declared upstream (a clean shutdown). */
  async stop(cleanup: boolean): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.generation++;
    const up = this.up;
    const down = this.down;
    this.up = null;
    this.down = null;
    if (up && cleanup && this.upstream.resourceCleanupMode !== "never") {
      try {
        await this.cleanupUpstream(up);
      } catch (err) {
        this.host.logger.debug("federation link cleanup failed", { link: this.describe(), err: String(err) });
      }
    }
    await Promise.allSettled([closeWithin(up), closeWithin(down)]);
  }

  /** Closes both endpoints and starts again at once (DELETE …/restart, coneyctl restart_federation_link). */
  restart(): void {
    if (this.stopped) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.closeEndpoints();
    void this.run();
  }

  describe(): string {
    return `${this.kind} '${this.name}' in vhost '${this.vhost}' from upstream '${this.upstream.name}'`;
  }

  private async run(): Promise<void> {
    const gen = ++this.generation;
    this.setState("starting", null);
    const uris = this.upstream.uris;
    const uri = uris[this.attempt++ % Math.max(uris.length, 1)] ?? "";
    this.uri = displayUri(uri);
    this.upstreamVhost = this.host.upstreamVhost(uri, this.vhost);
    const confirms = this.upstream.ackMode === "on-confirm";
    let up: Endpoint | null = null;
    let down: Endpoint | null = null;
    try {
      down = await this.host.openDownstream(this.vhost, { name: this.connectionName, confirms });
      if (gen !== this.generation) throw new Superseded();
      up = await this.host.openUpstream(uri, this.vhost, { name: this.connectionName, confirms: false });
      if (gen !== this.generation) throw new Superseded();
      this.up = up;
      this.down = down;
      const onDown = (side: string) => (reason: string) => {
        if (gen === this.generation) this.failed(`${side}: ${reason}`);
      };
      up.onDown = onDown("upstream");
      down.onDown = onDown("downstream");
      await this.connect(up, down, gen);
      if (gen !== this.generation) throw new Superseded();
      this.setState("running", null);
      this.host.logger.info("federation link running", { link: this.describe(), uri: this.uri });
    } catch (err) {
      if (err instanceof Superseded || gen !== this.generation) {
        await Promise.allSettled([closeWithin(up), closeWithin(down)]);
        return;
      }
      this.failed(reasonOf(err));
    }
  }

  private failed(reason: string): void {
    if (this.stopped) return;
    this.generation++;
    this.closeEndpoints();
    this.setState("error", reason);
    this.host.logger.warn("federation link down", { link: this.describe(), uri: this.uri, reason });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) void this.run();
    }, Math.max(0, this.upstream.reconnectDelay) * 1000);
    this.retryTimer.unref?.();
  }

  private closeEndpoints(): void {
    const up = this.up;
    const down = this.down;
    this.up = null;
    this.down = null;
    this.disconnected();
    void Promise.allSettled([closeWithin(up), closeWithin(down)]);
  }

  private setState(state: LinkState, error: string | null): void {
    this.state = state;
    this.error = error;
    this.since = Date.now();
    this.host.changed(this);
  }

  /** Declares what the link needs upstream and starts moving messages. */
  protected abstract connect(up: Endpoint, down: Endpoint, gen: number): Promise<void>;
  /** The endpoints are gone (failure, restart): forget per-connection state. */
  protected abstract disconnected(): void;
  /** Deletes what the link declared upstream (a clean stop). */
  protected abstract cleanupUpstream(up: Endpoint): Promise<void>;

  /**
   * Republishes one delivery downstream and settles it upstream per the ack mode: on-confirm acks
   * after the downstream confirmed (a nack is passed on, as RabbitMQ does), on-publish at once.
   */
  protected forward(d: LinkDelivery, exchange: string, routingKey: string, properties: LinkDelivery["properties"]): void {
    const up = this.up;
    const down = this.down;
    if (!up || !down) return;
    const mode = this.upstream.ackMode;
    const gen = this.generation;
    this.forwarded++;
    down.publish(exchange, routingKey, properties, d.body, (ok) => {
      if (mode !== "on-confirm" || gen !== this.generation) return;
      if (ok) up.ack(d.tag, false);
      else up.nack(d.tag, false);
    });
    if (mode === "on-publish") up.ack(d.tag, false);
  }

  /** Acks a delivery the link drops (max-hops, cycle), as RabbitMQ acks what it does not forward. */
  protected drop(d: LinkDelivery): void {
    this.dropped++;
    if (this.upstream.ackMode !== "no-ack") this.up?.ack(d.tag, false);
  }
}

class Superseded extends Error {}

/** How long a link waits for an endpoint to close (a dead peer never answers connection.close). */
const CLOSE_TIMEOUT_MS = 2000;

function closeWithin(e: Endpoint | null): Promise<void> {
  if (e === null) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    e.close().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      timer.unref?.();
    }),
  ]).finally(() => clearTimeout(timer));
}

function reasonOf(err: unknown): string {
  if (err instanceof Error) {
    // RabbitMQ shows a failed connect as the POSIX reason: "econnrefused", "ehostunreach", …
    const code = (err as NodeJS.ErrnoException).code ?? /^connect (E[A-Z]+)\b/.exec(err.message)?.[1];
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code.toLowerCase();
    return err.message;
  }
  return String(err);
}
