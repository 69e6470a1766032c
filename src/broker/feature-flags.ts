/**
 * RabbitMQ's feature flags as Coney reports them (GET /api/feature-flags, PUT
 * /api/feature-flags/{name}/enable). RabbitMQ's flags gate features while the nodes of a cluster
 * are upgraded one by one; Coney's nodes run one version, so a flag here says whether Coney has the
 * feature: "enabled" when it does (from the first boot, as on a fresh RabbitMQ 3.10 node), and
 * "unavailable" when it does not (RabbitMQ's state for a flag some node cannot support), which
 * enabling cannot change. Flags are RabbitMQ 3.10's, with its names and descriptions.
 */
import { BrokerError } from "../errors/broker-error.js";

export type FeatureFlagState = "enabled" | "disabled" | "unavailable";

export interface FeatureFlag {
  readonly name: string;
  readonly desc: string;
  readonly docUrl: string;
  readonly stability: "stable" | "experimental";
  readonly providedBy: string;
  state: FeatureFlagState;
}

const flag = (name: string, desc: string, state: FeatureFlagState, providedBy = "rabbit", docUrl = ""): FeatureFlag => ({ name, desc, docUrl, stability: "stable", providedBy, state });

export class FeatureFlags {
  private readonly flags = new Map<string, FeatureFlag>(
    [
      flag("drop_unroutable_metric", "Count unroutable publishes to be dropped in stats", "enabled", "rabbitmq_management_agent"),
      flag("empty_basic_get_metric", "Count AMQP `basic.get` on empty queues in stats", "enabled", "rabbitmq_management_agent"),
      flag("implicit_default_bindings", "Default bindings are now implicit, instead of being stored in the database", "enabled"),
      flag("maintenance_mode_status", "Maintenance mode status", "unavailable"),
      flag("quorum_queue", "Support queues of type `quorum`", "enabled", "rabbit", "https://www.rabbitmq.com/quorum-queues.html"),
      flag("stream_queue", "Support queues of type `stream`", "enabled", "rabbit", "https://www.rabbitmq.com/stream.html"),
      flag("user_limits", "Configure connection and channel limits for a user", "enabled"),
      flag("virtual_host_metadata", "Virtual host metadata (description, tags, etc)", "enabled"),
    ].map((f) => [f.name, f]),
  );

  /** Every flag, by name. */
  list(): readonly FeatureFlag[] {
    return [...this.flags.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /**
   * Enables a flag; enabling an enabled one changes nothing. A flag Coney does not know, or whose
   * feature it lacks, is refused with RabbitMQ's reason, `unsupported`.
   */
  enable(name: string): void {
    const f = this.flags.get(name);
    if (!f || f.state === "unavailable") throw new BrokerError("badRequest", "unsupported");
    f.state = "enabled";
  }
}
