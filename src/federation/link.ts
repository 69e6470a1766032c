/**
 * A federation link's life (docs/FEDERATION.md, "Link states"): starting → running, or error with
 * a reason and a retry after the upstream's reconnect-delay; stopped for good by the service. It
 * owns its two endpoints (upstream: another broker or this one; downstream: this broker through
 * the local endpoint), counts what it moved, and hands deliveries to the kind-specific part
 * (exchange-link.ts, queue-link.ts), which also declares what the link needs upstream.
 */
import { displayUri } from "../links/amqp-uri.js";
import { LinkLoop, type RunControl } from "../links/link-loop.js";
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
  /** Messages moved downstream and messages dropped (max-hops / cycle), since the link was made. */
  forwarded = 0;
  dropped = 0;
  /** The URI in use (credentials and query removed, as RabbitMQ's safe_uri), for the API and headers. */
  uri: string;
  /** The vhost of the upstream in use. */
  protected upstreamVhost = "/";
  protected up: Endpoint | null = null;
  protected down: Endpoint | null = null;
  /** The run in progress: callbacks of an older run's endpoints are ignored. */
  protected generation = 0;
  private attempt = 0;
  /** Starting, retrying after reconnect-delay, the recorded reason: src/links' LinkLoop. */
  private readonly loop: LinkLoop;

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
    this.uri = displayUri(upstream.uris[0] ?? "");
    // RabbitMQ retries a federation link every reconnect-delay seconds (0: at once; Coney waits 1 s).
    const ms = upstream.reconnectDelay > 0 ? upstream.reconnectDelay * 1000 : 1000;
    this.loop = new LinkLoop((control) => this.run(control), { initialMs: ms, maxMs: ms, factor: 1 });
    this.loop.onChange = (loop) => {
      if (loop.state === "down") this.host.logger.warn("federation link down", { link: this.describe(), uri: this.uri, reason: loop.reason });
      if (loop.state === "running") this.host.logger.info("federation link running", { link: this.describe(), uri: this.uri });
      this.host.changed(this);
    };
  }

  /** RabbitMQ's statuses: starting, running, or error (down, retrying) with `error`. */
  get state(): LinkState {
    const s = this.loop.state;
    return s === "running" ? "running" : s === "down" ? "error" : "starting";
  }

  get error(): string | null {
    return this.loop.state === "down" ? this.loop.reason : null;
  }

  /** When the status last changed (ms). */
  get since(): number {
    return this.loop.since;
  }

  /** RabbitMQ's connection name for the link's connections. */
  get connectionName(): string {
    return `Federation link (upstream: ${this.upstream.name}, policy: ${this.policy})`;
  }

  /** The upstream exchange or queue this link reads from. */
  abstract get upstreamResource(): string;

  start(): void {
    this.loop.start();
  }

  /** Stops for good; `cleanup` deletes what the link declared upstream (a clean shutdown). */
  async stop(cleanup: boolean): Promise<void> {
    const up = this.up;
    if (up && cleanup && this.upstream.resourceCleanupMode !== "never") {
      try {
        await this.cleanupUpstream(up);
      } catch (err) {
        this.host.logger.debug("federation link cleanup failed", { link: this.describe(), err: String(err) });
      }
    }
    await this.loop.stop();
  }

  /** Closes both endpoints and starts again at once (DELETE …/restart, coneyctl restart_federation_link). */
  restart(): void {
    if (this.loop.state === "stopped") return;
    void this.loop.restart();
  }

  describe(): string {
    return `${this.kind} '${this.name}' in vhost '${this.vhost}' from upstream '${this.upstream.name}'`;
  }

  /** One run: open both endpoints, declare upstream, consume; resolves to what closes them. */
  private async run(control: RunControl): Promise<() => Promise<void>> {
    const gen = ++this.generation;
    const uris = this.upstream.uris;
    const uri = uris[this.attempt++ % Math.max(uris.length, 1)] ?? "";
    this.uri = displayUri(uri);
    this.upstreamVhost = this.host.upstreamVhost(uri, this.vhost);
    const confirms = this.upstream.ackMode === "on-confirm";
    let up: Endpoint | null = null;
    let down: Endpoint | null = null;
    const close = async (): Promise<void> => {
      if (this.generation === gen) {
        this.generation++;
        this.up = null;
        this.down = null;
        this.disconnected();
      }
      await Promise.allSettled([closeWithin(up), closeWithin(down)]);
    };
    try {
      down = await this.host.openDownstream(this.vhost, { name: this.connectionName, confirms });
      up = await this.host.openUpstream(uri, this.vhost, { name: this.connectionName, confirms: false });
      this.up = up;
      this.down = down;
      let lost: string | null = null;
      const onDown = (side: string) => (reason: string): void => {
        lost ??= `${side}: ${reason}`;
        control.down(lost);
      };
      up.onDown = onDown("upstream");
      down.onDown = onDown("downstream");
      await this.connect(up, down, gen);
      // An endpoint that went down while the link was declaring: the loop already knows.
      if (lost !== null) throw new Error(lost);
    } catch (err) {
      await close();
      throw new Error(reasonOf(err));
    }
    control.up();
    return close;
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
