/**
 * Whether holding one queue's delivered records back for their acks pays (delivery-hold.ts).
 *
 * Each queue's log has its own judge, since whether a hold pays is its consumers' habit: a slow
 * worker with a large prefetch keeps its deliveries unacked for long, so its holds end written
 * after all (expired), while a consumer that keeps up acks within milliseconds (paid). Judged per
 * store, one slow worker turned holds off for every queue and the others lost the writes holds
 * saved them.
 *
 * The rule: once JUDGE_AFTER holds have ended, if more than 1 in EXPIRED_RATIO expired, the queue's
 * records are not held for BACKOFF_MIN_MS, doubling while they keep failing up to BACKOFF_MAX_MS;
 * a good tally resets the back-off.
 *
 * Judged lazily, when a write asks whether it may hold a record of the queue (allows()): ending a
 * hold only counts, so the store's cancel path reads no clock.
 */

/** Holds that must have ended before their outcome is judged. */
const JUDGE_AFTER = 8;
/**
 * Holding stops when more than 1 in EXPIRED_RATIO of the judged holds expired. A paid hold often
 * saved many writes (a run of acks cancels the held record and the records behind it), an expired
 * one saved none: so up to half may expire (a 1p1c stream acked every 100 deliveries: 14 of 35).
 */
const EXPIRED_RATIO = 2;
const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 30_000;

export class HoldJudge {
  private paid = 0;
  private expired = 0;
  /** No hold before this instant (performance.now()): the last ones did not pay. */
  private offUntil = 0;
  private backoffMs = BACKOFF_MIN_MS;

  /** A held record of this queue died unwritten (its ack came) or was written after all. */
  ended(paid: boolean): void {
    if (paid) this.paid++;
    else this.expired++;
  }

  /** May a write beginning at `now` (performance.now()) hold a record of this queue back? */
  allows(now: number): boolean {
    if (this.offUntil !== 0) {
      // Holds that ended while holding was off began before it: they say nothing new.
      this.paid = this.expired = 0;
      if (now < this.offUntil) return false;
      this.offUntil = 0;
    }
    const ended = this.paid + this.expired;
    if (ended < JUDGE_AFTER) return true;
    const failing = this.expired * EXPIRED_RATIO > ended;
    this.paid = this.expired = 0;
    if (!failing) {
      this.backoffMs = BACKOFF_MIN_MS;
      return true;
    }
    this.offUntil = now + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    return false;
  }
}
