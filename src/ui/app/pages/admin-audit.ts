/**
 * Admin › Audit trail: Coney's record of configuration changes (GET /api/coney/audit), newest
 * first, paged and filterable by name like the other lists; each entry opens on its own page
 * with its before and after records. Administrators only, as the API.
 */
import { AdminFrame } from "../components/admin-kit.js";
import { Unavailable } from "../components/error-box.js";
import { KvTable, ObjectTable } from "../components/kv.js";
import { ListView, type Column } from "../components/list-view.js";
import { useApp } from "../app-context.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import type { PageProps } from "../page-props.js";
import { href } from "../router.js";

export interface AuditEntry {
  id: number;
  at: string;
  user: string;
  auth: string;
  source: string;
  peer: string;
  node: string;
  action: string;
  vhost: string | null;
  name: string;
  before?: unknown;
  after?: unknown;
  result: "ok" | "error";
  error?: { error: string; reason: string };
}

const SOURCES: Record<string, string> = { http: "HTTP API", cli: "coneyctl", amqp: "AMQP", mqtt: "MQTT", internal: "the broker" };

const Result = ({ e }: { e: AuditEntry }) => (e.result === "ok" ? html`<span>ok</span>` : html`<span class="warn-text" title=${e.error?.reason ?? ""}>${e.error?.error ?? "error"}</span>`);

export function AdminAuditPage({ params }: PageProps) {
  return html`<${AdminFrame} seg="audit" title=${params["id"] ? `Audit entry ${params["id"]}` : "Audit trail"}>${params["id"] ? html`<${AuditEntryBody} id=${params["id"]} />` : html`<${AuditListBody} />`}<//>`;
}

function AuditListBody() {
  const columns: Column<AuditEntry>[] = [
    { key: "id", label: "#", num: true, render: (e) => html`<a href=${href("admin", "audit", String(e.id))}>${e.id}</a>` },
    { key: "at", label: "When" },
    { key: "user", label: "User" },
    { key: "source", label: "From", needs: ["peer"], render: (e) => html`${SOURCES[e.source] ?? e.source} <span class="muted">${e.peer}</span>` },
    { key: "action", label: "Action" },
    { key: "vhost", label: "Virtual host", render: (e) => e.vhost ?? "" },
    { key: "name", label: "Name" },
    { key: "result", label: "Result", needs: ["error"], render: (e) => html`<${Result} e=${e} />` },
  ];
  return html`<p class="lead">Every change to users, permissions, virtual hosts, policies, parameters, limits and definitions imports: who, from where, before and after. Export it as JSON lines with <code>GET /api/coney/audit?format=jsonl</code> or <code>coneyctl list_audit</code>.</p>
    <${ListView} id="admin-audit" noun="entries" path=${() => "/coney/audit"} columns=${columns} rowKey=${(e: AuditEntry) => String(e.id)} />`;
}

function AuditEntryBody({ id }: { id: string }) {
  const { api } = useApp();
  const entry = useLive(() => api.get<AuditEntry>(`/coney/audit/${encodeURIComponent(id)}`), [id], { live: false });
  if (entry.error) return html`<${Unavailable} error=${entry.error} back=${href("admin", "audit")} backLabel="Back to the audit trail" />`;
  const e = entry.data;
  if (!e) return html`<p class="muted">Loading…</p>`;
  return html`<${KvTable} label="Audit entry" rows=${[
      ["When", e.at],
      ["User", `${e.user} (${e.auth})`],
      ["From", `${SOURCES[e.source] ?? e.source} ${e.peer}`],
      ["Node", e.node],
      ["Action", e.action],
      ["Virtual host", e.vhost ?? ""],
      ["Name", e.name],
      ["Result", html`<${Result} e=${e} />${e.error ? html` ${e.error.reason}` : null}`],
    ]} />
    <h2>Before</h2>
    ${e.before === undefined ? html`<p class="muted">Not known (the change was refused before it looked).</p>` : e.before === null ? html`<p class="muted">Did not exist.</p>` : html`<${ObjectTable} value=${e.before} label="Before" />`}
    <h2>${e.result === "ok" ? "After" : "Asked for"}</h2>
    ${e.after === undefined || e.after === null ? html`<p class="muted">${e.result === "ok" ? "Gone." : "—"}</p>` : html`<${ObjectTable} value=${e.after} label="After" />`}
    <p><a href=${href("admin", "audit")}>Back to the audit trail</a></p>`;
}
