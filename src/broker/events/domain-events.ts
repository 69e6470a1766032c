/**
 * The broker's observer: its operations announce what changed (domain-event.ts), and listeners —
 * the event exchange, the audit trail — take it from here. It is protocol-neutral: AMQP, HTTP,
 * coneyctl, definitions imports and MQTT reach the same broker methods, which emit here.
 *
 * Cost: a configuration change builds its event only when `listening` (the audit trail always
 * listens; configuration changes are rare). Every other event — queues, exchanges, bindings,
 * connections, channels, consumers, logins, which come from code near the connection's path and
 * can be frequent — is built only while `detailWanted`: while a listener asks for them, i.e.
 * while something is bound to amq.rabbitmq.event. Nothing is emitted on the per-message path.
 *
 * Listeners run synchronously, after the change is complete; one that throws is skipped (its
 * error goes to `onListenerError`), never failing the operation that announced.
 */
import type { DomainEvent } from "./domain-event.js";

export type DomainEventListener = (event: DomainEvent) => void;

export class DomainEvents {
  private listeners: DomainEventListener[] = [];
  private readonly runtimeWanters = new Set<object>();
  /** True while some listener wants the events other than configuration changes (see above). */
  detailWanted = false;
  onListenerError: (err: unknown) => void = () => {};
  /**
   * While above 0 nothing is announced: a node applying another node's change (topology-apply.ts)
   * does not announce it again, as RabbitMQ announces a change once, where it was made.
   */
  private muted = 0;

  get listening(): boolean {
    return this.listeners.length > 0 && this.muted === 0;
  }

  /** Runs `change` with every announcement dropped (see `muted`). */
  silently<T>(change: () => T): T {
    this.muted++;
    try {
      return change();
    } finally {
      this.muted--;
    }
  }

  /** Adds a listener; returns its removal. */
  subscribe(listener: DomainEventListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** `who` asks for (or no longer needs) those events; they are built while anyone does. */
  wantDetail(who: object, wanted: boolean): void {
    if (wanted) this.runtimeWanters.add(who);
    else this.runtimeWanters.delete(who);
    this.detailWanted = this.runtimeWanters.size > 0;
  }

  emit(event: DomainEvent): void {
    if (this.muted > 0) return;
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
