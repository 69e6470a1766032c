/**
 * Listeners by importance (docs/CLUSTERING.md, "Listeners"). A node's duty is to serve AMQP and,
 * in a cluster, to replicate: the AMQP listener is essential, and a broker that cannot bind it
 * does not start (a cluster leader then steps down, so another node serves). Every other listener
 * — management HTTP(S), Prometheus, AMQPS, and the MQTT, stream and WebSocket ports — is a *side*
 * listener: one that cannot bind is retried in the background with back-off (1 s doubling to
 * 30 s), logged at most once per listener per 10 s with its port and why, reported down by
 * statuses() (health checks, `coney_listener_up`), and never stops the node or costs it
 * leadership.
 *
 * Invariant: after close(), no listener is open and no retry is pending; a bind that completes
 * after close() is closed at once.
 */
import type { Logger } from "../logging/logger.js";
import type { ListenerStatus } from "./listener-status.js";

/** A bound listener: its actual port (0 asks for an ephemeral one) and how to release it. */
export interface OpenListener {
  readonly port: number;
  close(): Promise<void>;
}

export interface SideListenerSpec {
  readonly protocol: string;
  /** What to bind (0 = ephemeral); a retry binds the same. */
  readonly port: number;
  /** Binds the listener; rejects when it cannot (EADDRINUSE, EACCES, a bad certificate, …). */
  open(): Promise<OpenListener>;
  /** Told the listener once it is bound (also after a retry succeeds). */
  opened?(listener: OpenListener): void;
}

export interface RetryPolicy {
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  /** At most one "cannot listen" line per listener within this time. */
  readonly logEveryMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { firstDelayMs: 1000, maxDelayMs: 30_000, logEveryMs: 10_000 };

interface Supervised {
  readonly spec: SideListenerSpec;
  open: OpenListener | null;
  reason: string | null;
  delayMs: number;
  timer: NodeJS.Timeout | null;
  lastLoggedAt: number;
  failures: number;
}

export class SideListeners {
  private readonly all: Supervised[] = [];
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {}

  /** Tries to bind now; resolves once the first attempt ended, bound or not (never rejects). */
  async add(spec: SideListenerSpec): Promise<void> {
    const s: Supervised = { spec, open: null, reason: null, delayMs: this.retry.firstDelayMs, timer: null, lastLoggedAt: -Infinity, failures: 0 };
    this.all.push(s);
    await this.attempt(s);
  }

  /** The bound port of the listener for `protocol`, null while it is down (or not configured). */
  portOf(protocol: string): number | null {
    return this.all.find((s) => s.spec.protocol === protocol)?.open?.port ?? null;
  }

  statuses(): ListenerStatus[] {
    return this.all.map((s) => ({ protocol: s.spec.protocol, port: s.open?.port ?? s.spec.port, up: s.open !== null, reason: s.open ? null : s.reason }));
  }

  async close(): Promise<void> {
    this.closed = true;
    const open: OpenListener[] = [];
    for (const s of this.all) {
      if (s.timer) clearTimeout(s.timer);
      s.timer = null;
      if (s.open) open.push(s.open);
      s.open = null;
    }
    await Promise.all(open.map((l) => l.close()));
  }

  private async attempt(s: Supervised): Promise<void> {
    s.timer = null;
    let listener: OpenListener;
    try {
      listener = await s.spec.open();
    } catch (err) {
      if (this.closed) return;
      this.failed(s, err);
      return;
    }
    if (this.closed) return void (await listener.close());
    s.open = listener;
    s.reason = null;
    s.delayMs = this.retry.firstDelayMs;
    if (s.failures > 0) this.logger.info("listener bound after retrying", { protocol: s.spec.protocol, port: listener.port, attempts: s.failures + 1 });
    s.failures = 0;
    s.spec.opened?.(listener);
  }

  private failed(s: Supervised, err: unknown): void {
    s.failures++;
    s.reason = describe(err);
    const now = performance.now();
    if (now - s.lastLoggedAt >= this.retry.logEveryMs) {
      s.lastLoggedAt = now;
      this.logger.error("cannot listen; retrying in the background (the node serves on without it)", { protocol: s.spec.protocol, port: s.spec.port, why: s.reason, attempts: s.failures });
    }
    s.timer = setTimeout(() => void this.attempt(s), s.delayMs);
    s.timer.unref();
    s.delayMs = Math.min(s.delayMs * 2, this.retry.maxDelayMs);
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message ?? ""}`.trim() : String(e.message ?? err);
}
