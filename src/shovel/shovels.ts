/**
 * The node's dynamic shovels (RabbitMQ's rabbit_shovel_dyn_worker_sup_sup): registers the
 * `shovel` runtime-parameter component (validation, and set/cleared from the API, definitions
 * import, boot and vhost deletion), keeps one LinkLoop per shovel, and answers the status the
 * API, UI, coneyctl and metrics show. Shovels run where the broker runs: a cluster's leader only
 * (followers run no broker; a new leader boots from the replicated definitions and starts them).
 * Links start once the node is up (`start()`), so a shovel restored at boot consumes only after
 * the messages are recovered.
 */
import type { Broker, ParameterComponent, ResourceAlarms } from "../broker/index.js";
import { fixedDelay, LinkLoop } from "../links/link-loop.js";
import type { Logger } from "../logging/logger.js";
import { shovelConfig, type ShovelConfig } from "./shovel-config.js";
import { ShovelRun } from "./shovel-run.js";
import { validateShovel } from "./shovel-validation.js";

export const SHOVEL_COMPONENT = "shovel";

/** RabbitMQ's shovel states. */
export type ShovelState = "starting" | "running" | "terminated";

export interface ShovelStatus {
  readonly vhost: string;
  readonly name: string;
  readonly state: ShovelState;
  /** Why it terminated (state terminated). */
  readonly reason: string | null;
  /** When the state last changed, ms since epoch. */
  readonly since: number;
  readonly srcUri: string | null;
  readonly destUri: string | null;
  readonly transferred: number;
  readonly config: ShovelConfig;
}

interface Entry {
  readonly config: ShovelConfig;
  readonly run: ShovelRun;
  readonly loop: LinkLoop;
}

const key = (vhost: string, name: string): string => `${vhost}\u0000${name}`;

export class Shovels {
  private readonly entries = new Map<string, Entry>();
  private started = false;
  private unregister: (() => void) | null = null;
  /** Told when a shovel's state changes (metrics read on scrape; this is for logs and tests). */
  onChange: ((status: ShovelStatus) => void) | null = null;

  /** `alarms`: this node's memory and disk alarms, which hold what shovels publish into it. */
  constructor(private readonly broker: Broker, private readonly clusterName: () => string, private readonly logger: Logger, private readonly alarms: ResourceAlarms | null = null) {}

  /** Registers the `shovel` component: before definitions are restored, so saved shovels are accepted. */
  register(): void {
    const component: ParameterComponent = {
      component: SHOVEL_COMPONENT,
      validate: (_vhost, name, value, user) => validateShovel(name, value, user, (u, v) => this.mayUseVhost(u, v)),
      set: (vhost, name, value) => this.define(vhost, name, value as Record<string, unknown>),
      cleared: (vhost, name) => void this.remove(vhost, name),
    };
    this.unregister = this.broker.parameterComponents.register(component);
  }

  private mayUseVhost(user: string, vhost: string): boolean {
    try {
      return this.broker.vhosts.has(vhost) && this.broker.checkerFor(user).hasVhostAccess(vhost);
    } catch {
      return false;
    }
  }

  /** The node is up: every defined shovel starts. */
  start(): void {
    this.started = true;
    for (const e of this.entries.values()) e.loop.start();
  }

  /** The node stops: every shovel closes (their parameters stay, for the next start or leader). */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.entries.values()].map((e) => e.loop.stop()));
    this.unregister?.();
    this.unregister = null;
  }

  private define(vhost: string, name: string, value: Record<string, unknown>): void {
    void this.remove(vhost, name);
    const config = shovelConfig(vhost, name, value);
    const run = new ShovelRun(this.broker, config, { clusterName: this.clusterName, alarms: this.alarms }, () => this.finished(vhost, name));
    const loop = new LinkLoop(run.run, fixedDelay(config.reconnectDelay));
    const entry: Entry = { config, run, loop };
    loop.onChange = (l) => {
      if (l.state === "down") this.logger.warn("shovel terminated", { vhost, shovel: name, reason: l.reason });
      this.onChange?.(this.statusOf(entry));
    };
    this.entries.set(key(vhost, name), entry);
    if (this.started) loop.start();
  }

  private async remove(vhost: string, name: string): Promise<void> {
    const e = this.entries.get(key(vhost, name));
    if (!e) return;
    this.entries.delete(key(vhost, name));
    await e.loop.stop();
  }

  /** src-delete-after reached: RabbitMQ's shovel clears its own parameter. */
  private finished(vhost: string, name: string): void {
    if (!this.entries.has(key(vhost, name))) return;
    this.logger.info("shovel finished (src-delete-after reached); deleting it", { vhost, shovel: name });
    try {
      this.broker.deleteParameter(SHOVEL_COMPONENT, vhost, name);
    } catch {
      void this.remove(vhost, name);
    }
  }

  /** DELETE /api/shovels/vhost/{vhost}/{name}/restart; false when there is no such shovel. */
  restart(vhost: string, name: string): boolean {
    const e = this.entries.get(key(vhost, name));
    if (!e) return false;
    this.logger.info("shovel restarted on request", { vhost, shovel: name });
    void e.loop.restart();
    return true;
  }

  has(vhost: string, name: string): boolean {
    return this.entries.has(key(vhost, name));
  }

  list(): ShovelStatus[] {
    return [...this.entries.values()].map((e) => this.statusOf(e));
  }

  private statusOf(e: Entry): ShovelStatus {
    const l = e.loop;
    const state: ShovelState = l.state === "running" ? "running" : l.state === "starting" ? "starting" : "terminated";
    return {
      vhost: e.config.vhost,
      name: e.config.name,
      state,
      reason: state === "terminated" ? (l.reason ?? "stopped") : null,
      since: l.since,
      srcUri: e.run.progress.srcUri,
      destUri: e.run.progress.destUri,
      transferred: e.run.progress.transferred,
      config: e.config,
    };
  }
}
