/**
 * The single routes table: every page of the UI, one file per page under pages/. A page is a
 * component taking the route's decoded params; `section` marks its main-nav entry.
 * To add a page: write pages/<name>.ts exporting the component, add one line here.
 */
import type { FunctionComponent } from "preact";
import type { PageProps } from "./page-props.js";
import { AdminPage } from "./pages/admin.js";
import { AdminTopicPermissionsPage } from "./pages/admin-topic-permissions.js";
import { AdminAuditPage } from "./pages/admin-audit.js";
import { AdminClusterPage } from "./pages/admin-cluster.js";
import { AdminExplainPage } from "./pages/admin-explain.js";
import { AdminFeatureFlagsPage } from "./pages/admin-feature-flags.js";
import { AdminFederationStatusPage, AdminFederationUpstreamsPage } from "./pages/admin-federation.js";
import { AdminLimitsPage } from "./pages/admin-limits.js";
import { AdminOperatorPoliciesPage, AdminPoliciesPage } from "./pages/admin-policies.js";
import { AdminShovelStatusPage, AdminShovelsPage } from "./pages/admin-shovels.js";
import { AdminUserPage } from "./pages/admin-user.js";
import { AdminUsersPage } from "./pages/admin-users.js";
import { AdminVhostPage } from "./pages/admin-vhost.js";
import { AdminVhostsPage } from "./pages/admin-vhosts.js";
import { ChannelPage } from "./pages/channel.js";
import { ChannelsPage } from "./pages/channels.js";
import { ConnectionPage } from "./pages/connection.js";
import { ConnectionsPage } from "./pages/connections.js";
import { ExchangePage } from "./pages/exchange.js";
import { ExchangesPage } from "./pages/exchanges.js";
import { NodePage } from "./pages/node.js";
import { OverviewPage } from "./pages/overview.js";
import { QueuePage } from "./pages/queue.js";
import { QueuesPage } from "./pages/queues.js";

export interface Route {
  readonly path: string;
  readonly section: string;
  /** The document title; params fill it for detail pages. */
  readonly title: (p: Record<string, string>) => string;
  readonly page: FunctionComponent<PageProps>;
}

export const ROUTES: readonly Route[] = [
  { path: "/", section: "overview", title: () => "Overview", page: OverviewPage },
  { path: "/nodes/:name", section: "overview", title: (p) => `Node ${p["name"]}`, page: NodePage },
  { path: "/connections", section: "connections", title: () => "Connections", page: ConnectionsPage },
  { path: "/connections/:name", section: "connections", title: (p) => `Connection ${p["name"]}`, page: ConnectionPage },
  { path: "/channels", section: "channels", title: () => "Channels", page: ChannelsPage },
  { path: "/channels/:name", section: "channels", title: (p) => `Channel ${p["name"]}`, page: ChannelPage },
  { path: "/exchanges", section: "exchanges", title: () => "Exchanges", page: ExchangesPage },
  { path: "/exchanges/:vhost/:name", section: "exchanges", title: (p) => `Exchange ${p["name"] || "(AMQP default)"}`, page: ExchangePage },
  { path: "/queues", section: "queues", title: () => "Queues", page: QueuesPage },
  { path: "/queues/:vhost/:name", section: "queues", title: (p) => `Queue ${p["name"]}`, page: QueuePage },
  { path: "/admin", section: "admin", title: () => "Admin", page: AdminPage },
  { path: "/admin/users", section: "admin", title: () => "Users", page: AdminUsersPage },
  { path: "/admin/users/:name", section: "admin", title: (p) => `User ${p["name"]}`, page: AdminUserPage },
  { path: "/admin/vhosts", section: "admin", title: () => "Virtual hosts", page: AdminVhostsPage },
  { path: "/admin/vhosts/:vhost", section: "admin", title: (p) => `Virtual host ${p["vhost"]}`, page: AdminVhostPage },
  { path: "/admin/topic-permissions", section: "admin", title: () => "Topic permissions", page: AdminTopicPermissionsPage },
  { path: "/admin/policies", section: "admin", title: () => "Policies", page: AdminPoliciesPage },
  { path: "/admin/operator-policies", section: "admin", title: () => "Operator policies", page: AdminOperatorPoliciesPage },
  { path: "/admin/limits", section: "admin", title: () => "Limits", page: AdminLimitsPage },
  { path: "/admin/cluster", section: "admin", title: () => "Cluster", page: AdminClusterPage },
  { path: "/admin/feature-flags", section: "admin", title: () => "Feature flags", page: AdminFeatureFlagsPage },
  { path: "/admin/federation-upstreams", section: "admin", title: () => "Federation upstreams", page: AdminFederationUpstreamsPage },
  { path: "/admin/federation-status", section: "admin", title: () => "Federation status", page: AdminFederationStatusPage },
  { path: "/admin/explain", section: "admin", title: () => "Permission explainer", page: AdminExplainPage },
  { path: "/admin/shovels", section: "admin", title: () => "Shovel Management", page: AdminShovelsPage },
  { path: "/admin/shovel-status", section: "admin", title: () => "Shovel Status", page: AdminShovelStatusPage },
  { path: "/admin/audit", section: "admin", title: () => "Audit trail", page: AdminAuditPage },
  { path: "/admin/audit/:id", section: "admin", title: (p) => `Audit entry ${p["id"]}`, page: AdminAuditPage },
  { path: "/admin/explain/:user/:vhost", section: "admin", title: (p) => `Permission explainer: ${p["user"]}`, page: AdminExplainPage },
];

/** The main navigation, in RabbitMQ's order. `tags`: shown only to users holding one of them. */
export const NAV: ReadonlyArray<{ label: string; path: string; section: string; tags?: string[] }> = [
  { label: "Overview", path: "/", section: "overview" },
  { label: "Connections", path: "/connections", section: "connections" },
  { label: "Channels", path: "/channels", section: "channels" },
  { label: "Exchanges", path: "/exchanges", section: "exchanges" },
  { label: "Queues", path: "/queues", section: "queues" },
  // As RabbitMQ 3.10's UI: Admin for every management user (Policies, Limits; monitoring adds
  // Shovel and Federation Status), and the permission explainer everyone may use about themselves.
  { label: "Admin", path: "/admin", section: "admin", tags: ["management", "monitoring", "policymaker"] },
];
