/**
 * Admin › Permission explainer: pick a user, vhost, operation and resource; the broker answers
 * allowed or refused and which check decided, in the order it enforces them: authentication →
 * vhost access → pattern (or an OAuth 2.0 token's scopes). The verdict comes from
 * GET /api/coney/explain-permission, i.e. from the broker's own permission checker, never from a
 * copy of its rules in the browser. Administrators may ask about anyone; others about themselves.
 */
import { useState } from "preact/hooks";
import { hasTag, useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame } from "../components/admin-kit.js";
import { ErrorBox } from "../components/error-box.js";
import { SelectField, TextField } from "../components/fields.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import type { PageProps } from "../page-props.js";
import { href } from "../router.js";

type CheckName = "authentication" | "vhost_access" | "pattern" | "scope" | "topic";

interface Explanation {
  user: string;
  vhost: string;
  permission: string;
  resource: string;
  name: string;
  allowed: boolean;
  decided_by: CheckName;
  routing_key?: string;
  checks: Array<{ check: CheckName; passed: boolean; reason: string; pattern?: string; scope?: string | null; topic_pattern?: string | null }>;
  refusal: string | null;
  /** For administrators: the audit entry that set the deciding permission (null: none kept). */
  granted_by?: { id: number; at: string; user: string; source: string } | null;
}

const STEP_LABELS: Record<CheckName, string> = {
  authentication: "1. Authentication",
  vhost_access: "2. Virtual host access",
  pattern: "3. Permission pattern",
  scope: "3. Token scopes",
  topic: "4. Topic permission",
};

/** What each kind governs (the spec's permission model), to help pick the right one. */
const OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ["configure", "configure"],
  ["write", "write"],
  ["read", "read"],
];
const GOVERNS: Record<string, string> = {
  configure: "Declaring or deleting a queue or exchange.",
  write: "Publishing to an exchange; being the destination of a binding.",
  read: "Consuming, getting or purging a queue; being the source of a binding; a passive declare.",
};

export function AdminExplainPage({ params }: PageProps) {
  return html`<${AdminFrame} seg="explain" title="Permission explainer"><${AdminExplainBody} params=${params} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
/** `params` may name the user and vhost to start from (links from permission tables). */
function AdminExplainBody({ params }: PageProps) {
  const { api, user: me, tags } = useApp();
  const admin = hasTag(tags, "administrator");
  const users = useLive(() => (admin ? api.get<Array<{ name: string }>>("/users", { columns: "name" }) : Promise.resolve([{ name: me }])), [admin], { live: false });
  const vhosts = useLive(() => api.get<Array<{ name: string }>>("/vhosts", { columns: "name" }), [], { live: false });
  const [user, setUser] = useState(params["user"] ?? me);
  const [vhost, setVhost] = useState(params["vhost"] ?? "/");
  const [permission, setPermission] = useState("configure");
  const [resource, setResource] = useState("queue");
  const [name, setName] = useState("");
  const [routingKey, setRoutingKey] = useState("");
  const [clientId, setClientId] = useState("");
  const [answer, setAnswer] = useState<Explanation | null>(null);
  const act = useAction();
  const topical = resource === "exchange" && permission !== "configure";
  const submit = (e: Event): void => {
    e.preventDefault();
    setAnswer(null);
    void act.run(async () => {
      // Built here, not with the client's query helper: that one drops empty values, and an empty
      // name (the default exchange) is a real question.
      const q = new URLSearchParams({ user: admin ? user : me, vhost, permission, resource, name });
      // A routing key (publish) or binding key (bind from) is checked against topic permissions.
      if (topical && routingKey !== "") q.set("routing_key", routingKey);
      // An MQTT client's id, for {client_id} in topic permission patterns.
      if (topical && routingKey !== "" && clientId !== "") q.set("client_id", clientId);
      setAnswer(await api.get<Explanation>(`/coney/explain-permission?${q.toString()}`));
    });
  };
  return html`    <p class="lead">Would this user be allowed this operation, and why? The broker answers with the same check it enforces.</p>
    <form class="form admin-form explain-form" onSubmit=${submit} aria-label="Explain a permission">
      <div class="field-row">
        ${admin
          ? html`<label class="field">User
              <input name="user" list="explain-users" required value=${user} onInput=${(e: Event) => setUser((e.target as HTMLInputElement).value)} />
              <datalist id="explain-users">${(users.data ?? []).map((u) => html`<option value=${u.name} />`)}</datalist>
            </label>`
          : html`<p class="field">User <strong>${me}</strong> <span class="hint">(you may ask about yourself; administrators about anyone)</span></p>`}
        <label class="field">Virtual host
          <input name="vhost" list="explain-vhosts" required value=${vhost} onInput=${(e: Event) => setVhost((e.target as HTMLInputElement).value)} />
          <datalist id="explain-vhosts">${(vhosts.data ?? []).map((v) => html`<option value=${v.name} />`)}</datalist>
        </label>
      </div>
      <div class="field-row">
        <${SelectField} label="Operation" name="permission" value=${permission} set=${setPermission} options=${OPERATIONS} />
        <${SelectField} label="Resource" name="resource" value=${resource} set=${setResource} options=${[["queue", "Queue"], ["exchange", "Exchange"]]} />
        <${TextField} label="Resource name" name="name" value=${name} set=${setName} />
        ${topical ? html`<${TextField} label=${permission === "write" ? "Routing key (optional)" : "Binding key (optional)"} name="routing_key" value=${routingKey} set=${setRoutingKey} />` : null}
        ${topical ? html`<${TextField} label="MQTT client id (optional)" name="client_id" value=${clientId} set=${setClientId} />` : null}
      </div>
      ${topical ? html`<p class="hint">On a topic exchange the key is also checked against the user's topic permission: ${permission === "write" ? "publishing matches the routing key against its write pattern" : "binding matches the binding key against its read pattern"}. For an MQTT client, the key is its topic with / as . and + as *, and its client id fills {client_id}.</p>` : null}
      <p class="hint">${permission}: ${GOVERNS[permission]} An empty name is the default exchange.</p>
      <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Explain</button></div>
      <${ErrorBox} error=${act.error ?? users.error} />
    </form>
    ${answer ? html`<${Verdict} e=${answer} />` : null}`;
}

function Verdict({ e }: { e: Explanation }) {
  const ran = new Set(e.checks.map((c) => c.check));
  const last: CheckName = ran.has("scope") ? "scope" : "pattern";
  const steps: CheckName[] = ["authentication", "vhost_access", last, ...(e.routing_key !== undefined ? ["topic" as const] : [])];
  const key = e.routing_key !== undefined ? ` with ${e.permission === "write" ? "routing" : "binding"} key “${e.routing_key}”` : "";
  const what = `${e.permission} on ${e.resource} ${e.name === "" ? "(the default exchange)" : `“${e.name}”`}${key} in virtual host “${e.vhost}” for user “${e.user}”`;
  return html`<section class=${`verdict ${e.allowed ? "verdict-allowed" : "verdict-refused"}`} aria-live="polite" aria-label="Verdict">
    <h2 class="verdict-title">${e.allowed ? "Allowed" : "Refused"}</h2>
    <p>${what}: <strong>${e.allowed ? "allowed" : "refused"}</strong>, decided by <strong>${STEP_LABELS[e.decided_by].slice(3).toLowerCase()}</strong>.</p>
    <ol class="checks">
      ${steps.map((step) => {
        const c = e.checks.find((x) => x.check === step);
        if (!c) return html`<li class="check check-skipped"><span class="check-mark" aria-hidden="true">·</span> <strong>${STEP_LABELS[step]}</strong> <span class="muted">not reached: an earlier check decided.</span></li>`;
        return html`<li class=${`check ${c.passed ? "check-pass" : "check-fail"}`}>
          <span class="check-mark" aria-hidden="true">${c.passed ? "✓" : "✗"}</span> <strong>${STEP_LABELS[step]}</strong> <span class="sr-only">${c.passed ? "passed" : "failed"}</span>
          ${c.check === e.decided_by ? html` <span class="tag">decided</span>` : null}
          <div>${c.reason}</div>
        </li>`;
      })}
    </ol>
    ${e.refusal ? html`<p>A client would be told: <code class="refusal">${e.refusal}</code></p>` : null}
    ${e.granted_by ? html`<p class="granted-by">This permission was set by <strong>${e.granted_by.user}</strong> (${e.granted_by.source}) at ${e.granted_by.at}: <a href=${href("admin", "audit", String(e.granted_by.id))}>audit entry #${e.granted_by.id}</a>.</p>` : null}
  </section>`;
}
