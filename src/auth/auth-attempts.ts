/**
 * Authentication attempts per protocol, as RabbitMQ's /api/auth/attempts/{node} reports them:
 * every login tried over AMQP 0-9-1, MQTT or the management API, and how many failed or succeeded.
 * Per-source tracking is off (RabbitMQ's default, track_auth_attempt_source = false).
 */
export type AuthProtocol = "amqp091" | "amqp10" | "http" | "mqtt" | "stream" | "stomp";

interface Counts {
  attempts: number;
  failed: number;
}

export class AuthAttempts {
  private readonly byProtocol = new Map<AuthProtocol, Counts>();

  record(protocol: AuthProtocol, succeeded: boolean): void {
    let c = this.byProtocol.get(protocol);
    if (!c) this.byProtocol.set(protocol, (c = { attempts: 0, failed: 0 }));
    c.attempts++;
    if (!succeeded) c.failed++;
  }

  reset(): void {
    this.byProtocol.clear();
  }

  /** RabbitMQ's records: one per protocol that has seen an attempt. */
  list(): Array<{ protocol: AuthProtocol; auth_attempts: number; auth_attempts_failed: number; auth_attempts_succeeded: number }> {
    return [...this.byProtocol].map(([protocol, c]) => ({ protocol, auth_attempts: c.attempts, auth_attempts_failed: c.failed, auth_attempts_succeeded: c.attempts - c.failed }));
  }
}
