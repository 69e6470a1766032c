/**
 * Admin: the entry to users, virtual hosts, policies, limits, the cluster and the permission
 * explainer — each section listed only for the tags that may use it (see admin-kit.ts).
 */
import { useApp } from "../app-context.js";
import { ADMIN_SECTIONS, AdminNav, mayUse } from "../components/admin-kit.js";
import { html } from "../html.js";
import { href } from "../router.js";

const ABOUT: Record<string, string> = {
  users: "Add and delete users, set their tags, passwords and permissions per virtual host.",
  vhosts: "Add and delete virtual hosts; their limits and who may use them.",
  "topic-permissions": "Which routing keys a user may publish with, and bind with, on each topic exchange.",
  policies: "Queue and exchange settings applied by name pattern.",
  "operator-policies": "Caps that apply over users' policies (max length, TTL…).",
  limits: "Connections and queues per virtual host; connections and channels per user.",
  cluster: "The cluster name and global parameters.",
  "feature-flags": "Which of RabbitMQ's feature flags the broker has enabled; administrators enable a disabled one.",
  "federation-upstreams": "The brokers this one federates exchanges and queues from (federation-upstream parameters).",
  "federation-status": "Each federation link: running, starting, or down with the reason; restart one.",
  explain: "Would a user be allowed an operation, and which check decides?",
  audit: "Who changed users, permissions, vhosts, policies and parameters, from where, before and after.",
  "shovel-status": "Every dynamic shovel's state (starting, running, terminated and why); restart one.",
  shovels: "Add and delete dynamic shovels: move messages from a queue or exchange to another, here or on another broker.",
};

export function AdminPage() {
  const { tags } = useApp();
  return html`<${AdminNav} current="" />
    <h1>Admin</h1>
    <dl class="admin-index">
      ${ADMIN_SECTIONS.filter((s) => mayUse(tags, s.tag)).map(
        (s) => html`<dt><a href=${href("admin", s.seg)}>${s.label}</a></dt><dd>${ABOUT[s.seg] ?? ""}</dd>`,
      )}
    </dl>`;
}
