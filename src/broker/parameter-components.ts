/**
 * The registry of runtime-parameter components (RabbitMQ's rabbit_registry of
 * runtime_parameter modules). A vhost-scoped parameter is accepted only for a component some
 * feature registered: the feature validates the value (returning RabbitMQ's texts, which the
 * broker turns into the 400 "Validation failed" body) and is told when a value is set or
 * cleared — by the API, by a definitions import (at boot too: saved definitions are imported
 * through the same operation), and when its vhost is deleted. A cluster's followers run no
 * broker: the node that takes over boots from the replicated definitions, so its features
 * hear every saved parameter then. Features register before the definitions are restored, so
 * a saved parameter of theirs is not refused at boot.
 *
 * The domain stays protocol-neutral: a component is a plain object; what it runs when told
 * (a shovel's links, a federation upstream) lives on the floors above.
 */
import { BrokerError } from "../errors/broker-error.js";

export interface ParameterComponent {
  /** The component name in /api/parameters/{component}/... */
  readonly component: string;
  /**
   * RabbitMQ's validation messages for this value, each a line of the 400 reason; empty when
   * valid. `user` is who sets it (null at boot/import by the broker itself).
   */
  validate(vhost: string, name: string, value: unknown, user: string | null): readonly string[];
  /** A value was stored (new, or different from the one before). */
  set?(vhost: string, name: string, value: unknown): void;
  /** A value was removed (deleted, or its vhost deleted). */
  cleared?(vhost: string, name: string): void;
}

/** RabbitMQ's body for refused runtime parameters: "Validation failed", a blank line, one line per error. */
export function validationFailed(lines: readonly string[]): BrokerError {
  return new BrokerError("badRequest", `Validation failed\n\n${lines.map((l) => `${l}\n`).join("")}`);
}

export class ParameterComponents {
  private readonly byName = new Map<string, ParameterComponent>();
  /** A component's set/cleared that throws is reported here and never undoes the stored change. */
  onNotifyError: (component: string, err: unknown) => void = () => {};

  /** Registers a component; returns what unregisters it (a feature stopping). */
  register(c: ParameterComponent): () => void {
    if (this.byName.has(c.component)) throw new Error(`runtime parameter component '${c.component}' is already registered`);
    this.byName.set(c.component, c);
    return () => {
      if (this.byName.get(c.component) === c) this.byName.delete(c.component);
    };
  }

  has(component: string): boolean {
    return this.byName.has(component);
  }

  /** Throws RabbitMQ's 400 when the component is unknown or the value invalid. */
  validate(component: string, vhost: string, name: string, value: unknown, user: string | null): void {
    const c = this.byName.get(component);
    if (!c) throw validationFailed([`component ${component} not found`]);
    const errors = c.validate(vhost, name, value, user);
    if (errors.length > 0) throw validationFailed(errors);
  }

  /**
   * While above 0, changes are stored but no feature hears of them: a node applying another
   * node's change (topology-apply.ts) knows a shovel's parameter without running the shovel,
   * which runs on the node where it was set.
   */
  muted = 0;

  notifySet(component: string, vhost: string, name: string, value: unknown): void {
    if (this.muted > 0) return;
    const c = this.byName.get(component);
    if (!c?.set) return;
    try {
      c.set(vhost, name, value);
    } catch (err) {
      this.onNotifyError(component, err);
    }
  }

  notifyCleared(component: string, vhost: string, name: string): void {
    if (this.muted > 0) return;
    const c = this.byName.get(component);
    if (!c?.cleared) return;
    try {
      c.cleared(vhost, name);
    } catch (err) {
      this.onNotifyError(component, err);
    }
  }
}
