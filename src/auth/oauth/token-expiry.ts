/**
 * The end of a token login's life: fires once the OAuth 2.0 token's expiry has passed, so the
 * connection that logged in with it closes (AMQP and MQTT alike), unless a refreshed secret
 * re-arms it first.
 */
/** Fires `expired` once the token's expiry has passed; re-armable by a refreshed secret. */
export class TokenExpiry {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly expired: () => void) {}

  arm(expiresAt: number | null): void {
    this.clear();
    if (expiresAt === null) return;
    // setTimeout holds at most 2^31-1 ms; a later expiry re-arms when that fires.
    const delay = Math.min(Math.max(0, expiresAt - Date.now()), 2_147_483_647);
    this.timer = setTimeout(() => {
      if (Date.now() < expiresAt) this.arm(expiresAt);
      else this.expired();
    }, delay);
    this.timer.unref();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
