/**
 * One unref'd timer aimed at a deadline (ms since epoch). A queue has at most two: the expiry of
 * its head message (message TTL) and its own expiry (x-expires). Re-aiming at a later deadline
 * keeps the earlier one, so arming on every head change costs a comparison, not a new timer.
 */
export class DeadlineTimer {
  private timer: NodeJS.Timeout | null = null;
  private at = 0;

  constructor(
    private readonly fire: () => void,
    private readonly now: () => number,
  ) {}

  /** Fires at `deadline`, unless already due to fire no later than that. */
  armBy(deadline: number): void {
    if (this.timer && this.at <= deadline) return;
    this.clear();
    this.at = deadline;
    this.timer = setTimeout(this.onFire, Math.max(0, deadline - this.now())).unref();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly onFire = (): void => {
    this.timer = null;
    this.fire();
  };
}
