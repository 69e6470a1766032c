/**
 * x-expires (the argument, or a policy's `expires`): a queue that has had no consumer and no use
 * (basic.get, redeclare, a consumer coming or going) for that long is deleted. One timer aimed at
 * lastActivity + expires; when it fires and the queue was used meanwhile, it aims again.
 * Never on the message path: armed only when consumers, policies or the queue's life change.
 */
import { DeadlineTimer } from "./deadline-timer.js";

/** What the idle clock reads of its queue (the Queue class has these). */
export interface IdleWatched {
  readonly lastActivity: number;
  readonly consumerCount: number;
  readonly isDeleted: boolean;
  readonly settings: { readonly expires: number | null };
}

export class IdleExpiry {
  private readonly timer: DeadlineTimer;

  constructor(
    private readonly queue: IdleWatched,
    private readonly now: () => number,
    private readonly expired: () => void,
  ) {
    this.timer = new DeadlineTimer(() => this.onTimer(), now);
  }

  /** Counts from the queue's last use while it has no consumer; stops counting otherwise. */
  arm(): void {
    this.timer.clear();
    const q = this.queue;
    const expires = q.settings.expires;
    if (expires !== null && q.consumerCount === 0 && !q.isDeleted) this.timer.armBy(q.lastActivity + expires);
  }

  clear(): void {
    this.timer.clear();
  }

  private onTimer(): void {
    const q = this.queue;
    const expires = q.settings.expires;
    if (q.isDeleted || expires === null || q.consumerCount > 0) return;
    if (this.now() - q.lastActivity >= expires) this.expired();
    else this.arm();
  }
}
