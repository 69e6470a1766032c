/**
 * This node's session with etcd: one client, one lease, and the keepalive loop that tells how
 * long the lease is certainly valid (docs/CLUSTERING.md, "The confirm rule"). A renewal is sent
 * every TTL/3, counted from the previous send (a slow answer does not push the next one back).
 * On the monotonic clock, from the send time s of the last renewal etcd accepted:
 * - until s + TTL − margin the lease is certainly alive (`leaseValid`: a leader may confirm);
 * - from s + TTL (`expiresAt`) it has expired in etcd unless a later renewal reached etcd
 *   unanswered (`leaseExpired`: a leader fences);
 * - in between it is uncertain: a leader holds its confirms and waits for the next answer. A
 *   node whose event loop stalled for a second (a busy machine, a large recovery) is renewed on
 *   the next answer instead of losing its leadership to a lease etcd never let expire.
 */
import { Etcd3, type Lease } from "etcd3";
import { noop } from "cockatiel";
import type { Logger } from "../logging/logger.js";

/** Keys of one cluster (all under /coney/<cluster-name>/). */
export class ClusterKeys {
  constructor(readonly prefix: string) {}
  static of(clusterName: string): ClusterKeys {
    return new ClusterKeys(`/coney/${clusterName}/`);
  }
  get leader(): string {
    return `${this.prefix}leader`;
  }
  get insync(): string {
    return `${this.prefix}insync`;
  }
  /** The replication secret (replication-auth.ts), base64; created once by the cluster's first node. */
  get secret(): string {
    return `${this.prefix}secret`;
  }
  member(name: string): string {
    return `${this.prefix}members/${name}`;
  }
  known(name: string): string {
    return `${this.prefix}nodes/${name}`;
  }
}

/** How many times a start step against etcd is tried (atStart), and the first pause between tries (growing to 2 s). */
const START_ATTEMPTS = 10;
const START_RETRY_MS = 250;

/** Renewal must arrive this long before the lease could expire in etcd (clock-rate slack, scheduling). */
const MARGIN_MS = 1000;

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`etcd: ${what} timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export class EtcdSession {
  readonly client: Etcd3;
  private lease: Lease | null = null;
  leaseId = "";
  /** performance.now() from which the lease has expired in etcd as far as this node knows; 0 = no lease. */
  expiresAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Called when the lease is gone for certain (etcd said so, or expiresAt passed). */
  onLost: (() => void) | null = null;

  constructor(endpoints: string[], readonly ttl: number, private readonly logger: Logger) {
    // No retries or circuit breaker: the cluster loop retries on its own schedule, and a breaker
    // would keep etcd unused for seconds after it came back.
    this.client = new Etcd3({ hosts: endpoints, dialTimeout: 2000, faultHandling: { host: () => noop, global: noop } });
  }

  get callTimeout(): number {
    return Math.max(500, (this.ttl * 1000) / 3);
  }

  /** performance.now() until which the lease is certainly alive in etcd (the margin before expiresAt). */
  private get validUntil(): number {
    return this.expiresAt - MARGIN_MS;
  }

  get leaseValid(): boolean {
    return performance.now() < this.validUntil;
  }

  /** True once no renewal etcd accepted is younger than the TTL (see the header); false while no lease is held. */
  get leaseExpired(): boolean {
    return this.expiresAt !== 0 && performance.now() >= this.expiresAt;
  }

  private accepted(sent: number, ttlSeconds: number): void {
    // Answers may come out of order after a stall: a later send never shortens what is known.
    this.expiresAt = Math.max(this.expiresAt, sent + ttlSeconds * 1000);
  }

  /**
   * A step of this node's start against etcd, run again while etcd is slow or out of reach: one call
   * past its timeout (etcd's fsync on a busy disk can take most of a second) must not stop the node,
   * as RabbitMQ's peer discovery retries (`cluster_formation.discovery_retry_limit`). Each failure
   * is logged; after `attempts` the last one is thrown. Only for steps that may run twice (a grant
   * abandons the previous lease; the secret and registrations are idempotent writes).
   */
  async atStart<T>(what: string, step: () => Promise<T>, attempts = START_ATTEMPTS): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await step();
      } catch (err) {
        if (attempt >= attempts || this.closed) throw err;
        this.logger.warn("cluster: an etcd step of the start failed; trying again", { step: what, attempt, err: (err as Error).message });
        await new Promise((r) => setTimeout(r, Math.min(START_RETRY_MS * attempt, 2000)));
      }
    }
  }

  /** Grants a fresh lease (the previous one, if any, is abandoned) and starts renewing it. */
  async grant(): Promise<void> {
    this.stopRenewing();
    const lease = this.client.lease(this.ttl, { autoKeepAlive: false });
    lease.on("lost", () => undefined); // losses are detected by renew() below
    const sent = performance.now();
    this.leaseId = await withTimeout(lease.grant(), this.callTimeout * 2, "lease grant");
    this.lease = lease;
    this.expiresAt = 0;
    this.accepted(sent, this.ttl);
    this.schedule(sent);
  }

  /** The next renewal goes out TTL/3 after the previous send, or at once if that time has passed. */
  private schedule(lastSent: number): void {
    if (this.closed) return;
    const delay = Math.max(0, lastSent + (this.ttl * 1000) / 3 - performance.now());
    this.timer = setTimeout(() => void this.renew(), delay);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const lease = this.lease;
    if (!lease || this.closed) return;
    const sent = performance.now();
    try {
      const res = await withTimeout(lease.keepaliveOnce(), this.callTimeout, "lease keepalive");
      if (lease !== this.lease) return;
      const ttl = Number(res.TTL ?? 0);
      if (ttl <= 0) return this.lost("etcd says the lease expired");
      const late = performance.now() - this.validUntil;
      this.accepted(sent, ttl);
      // Rare and worth knowing: a leader held its confirms for this long.
      if (late > 0) this.logger.warn("cluster: etcd lease renewed late; it was uncertain", { ms: Math.round(late) });
    } catch (err) {
      if (lease !== this.lease) return;
      this.logger.warn("cluster: etcd lease renewal failed", { err: (err as Error).message });
      if (this.leaseExpired) return this.lost("lease could not be renewed in time");
    }
    this.schedule(sent);
  }

  private lost(why: string): void {
    this.logger.warn("cluster: etcd lease lost", { why });
    this.expiresAt = 0;
    this.lease = null;
    this.onLost?.();
  }

  private stopRenewing(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Revokes the lease (its keys vanish at once: a stopping leader hands over without waiting a TTL). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopRenewing();
    const lease = this.lease;
    this.lease = null;
    this.expiresAt = 0;
    if (lease) await withTimeout(lease.revoke(), 1000, "lease revoke").catch(() => undefined);
    this.client.close();
  }
}
