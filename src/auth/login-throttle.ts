/**
 * Failed-login throttling per client address (RabbitMQ has none; the spec asks that repeated
 * failures be slowed). After `freeFailures` failures within a window, an address is refused for
 * a back-off that doubles with each further failure, up to `maxBackoffMs`; a success clears it.
 * Memory is bounded: at most `maxAddresses` are tracked, the oldest dropped first.
 */
export interface ThrottleOptions {
  readonly freeFailures: number;
  readonly windowMs: number;
  readonly maxBackoffMs: number;
  readonly maxAddresses: number;
}

interface Failures {
  count: number;
  first: number;
  blockedUntil: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { freeFailures: 10, windowMs: 60_000, maxBackoffMs: 60_000, maxAddresses: 10_000 };

export class LoginThrottle {
  private readonly byAddress = new Map<string, Failures>();

  constructor(
    private readonly opts: ThrottleOptions = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds this address must still wait before trying again; 0 when it may try now. */
  waitFor(address: string): number {
    const f = this.byAddress.get(address);
    return f ? Math.max(0, f.blockedUntil - this.now()) : 0;
  }

  failed(address: string): void {
    const now = this.now();
    let f = this.byAddress.get(address);
    if (!f || now - f.first > this.opts.windowMs && f.blockedUntil <= now) {
      f = { count: 0, first: now, blockedUntil: 0 };
      this.byAddress.delete(address);
      if (this.byAddress.size >= this.opts.maxAddresses) this.byAddress.delete(this.byAddress.keys().next().value!);
      this.byAddress.set(address, f);
    }
    f.count++;
    const over = f.count - this.opts.freeFailures;
    if (over > 0) f.blockedUntil = now + Math.min(this.opts.maxBackoffMs, 1000 * 2 ** Math.min(over - 1, 20));
  }

  succeeded(address: string): void {
    this.byAddress.delete(address);
  }
}
