/**
 * Pieces the Admin pages share: the Admin sub-navigation (each entry shown only to the tags
 * that may use it, as the API enforces them), the management tag picker, the permission editor,
 * and a delete button that asks first. Tag rules here mirror the API's (src/http/http-auth.ts):
 * users, vhosts, topic permissions, operator policies, user limits and the cluster need administrator; policies and
 * global parameters need policymaker; vhost limits are readable by anyone who sees the vhost.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { hasTag, useApp } from "../app-context.js";
import { html } from "../html.js";
import { href } from "../router.js";
import { useAction } from "./action.js";
import { ErrorBox, Notice } from "./error-box.js";
import { TextField } from "./fields.js";

/**
 * The admin sections: label, route segment, the tag needed to see it ("" = any Admin user, which
 * is every user the UI lets in). As RabbitMQ 3.10's Admin tab: a management user gets Policies (to
 * read; changing takes policymaker) and Limits, monitoring adds Federation and Shovel Status,
 * policymaker adds Federation upstreams and Shovel Management. Coney adds, for everyone, the
 * feature flags (to read; enabling one is administrators') and the permission explainer.
 */
export const ADMIN_SECTIONS: ReadonlyArray<{ label: string; seg: string; tag: string }> = [
  { label: "Users", seg: "users", tag: "administrator" },
  { label: "Virtual hosts", seg: "vhosts", tag: "administrator" },
  { label: "Topic permissions", seg: "topic-permissions", tag: "administrator" },
  { label: "Policies", seg: "policies", tag: "" },
  { label: "Operator policies", seg: "operator-policies", tag: "administrator" },
  { label: "Limits", seg: "limits", tag: "" },
  { label: "Cluster", seg: "cluster", tag: "policymaker" },
  { label: "Feature flags", seg: "feature-flags", tag: "" },
  { label: "Federation upstreams", seg: "federation-upstreams", tag: "policymaker" },
  { label: "Federation status", seg: "federation-status", tag: "monitoring" },
  { label: "Permission explainer", seg: "explain", tag: "" },
  { label: "Audit trail", seg: "audit", tag: "administrator" },
  { label: "Shovel Status", seg: "shovel-status", tag: "monitoring" },
  { label: "Shovel Management", seg: "shovels", tag: "policymaker" },
];

export function mayUse(tags: readonly string[], tag: string): boolean {
  return tag === "" || hasTag(tags, tag);
}

export function AdminNav({ current }: { current: string }) {
  const { tags } = useApp();
  return html`<nav class="sub-nav" aria-label="Admin">
    ${ADMIN_SECTIONS.filter((s) => mayUse(tags, s.tag)).map(
      (s) => html`<a href=${href("admin", s.seg)} class=${s.seg === current ? "active" : ""} aria-current=${s.seg === current ? "page" : undefined}>${s.label}</a>`,
    )}
  </nav>`;
}

/** An admin page's frame: the sub-navigation, the title, and a clear refusal when the user's tags do not allow the section. */
export function AdminFrame({ seg, title, children }: { seg: string; title: string; children: ComponentChildren }) {
  const { tags } = useApp();
  const section = ADMIN_SECTIONS.find((s) => s.seg === seg);
  const allowed = !section || mayUse(tags, section.tag);
  return html`<${AdminNav} current=${seg} />
    <h1>${title}</h1>
    ${allowed
      ? children
      : html`<div class="msg msg-error" role="alert"><strong>Access refused</strong> This page needs the <code>${section?.tag}</code> tag; your user's tags are ${tags.join(", ") || "none"}.</div>`}`;
}

/** RabbitMQ's management tags, with what each gives in this UI and the API. */
export const KNOWN_TAGS: ReadonlyArray<readonly [string, string]> = [
  ["administrator", "everything, including users, vhosts and permissions"],
  ["monitoring", "sees every connection, channel and node figure"],
  ["policymaker", "manages policies and parameters of its vhosts"],
  ["management", "uses the UI and API for its own vhosts"],
  ["impersonator", "may publish with another user_id (no UI access on its own)"],
];

export const parseTagText = (text: string): string[] => [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];

/** Tags as a text field (comma-separated) with one-click buttons for the known tags. */
export function TagsField({ value, set }: { value: string; set: (v: string) => void }) {
  const current = parseTagText(value);
  const toggle = (t: string): void => set((current.includes(t) ? current.filter((x) => x !== t) : [...current, t]).join(", "));
  return html`<div class="field">
    <${TextField} label="Tags" name="tags" value=${value} set=${set} placeholder="e.g. management" hint="Comma-separated; empty means no UI access." />
    <div class="tag-picks" role="group" aria-label="Known tags">
      ${KNOWN_TAGS.map(
        ([t, help]) => html`<button type="button" class=${`small tag-pick${current.includes(t) ? " on" : ""}`} aria-pressed=${current.includes(t)} title=${help} onClick=${() => toggle(t)}>${t}</button>`,
      )}
    </div>
  </div>`;
}

/** A user's tags as badges. */
export function TagList({ tags }: { tags: readonly string[] | string }) {
  const list = Array.isArray(tags) ? tags : parseTagText(String(tags));
  if (list.length === 0) return html`<span class="muted">none</span>`;
  return html`${list.map((t) => html`<span class="tag">${t}</span> `)}`;
}

/**
 * A delete button that confirms first; `onDone` runs after the API said yes. `what` names the
 * object with its noun ("user bob"); a label that already ends with that noun ("Delete user") is
 * not repeated in the question ("Delete user bob?", not "Delete user user bob?").
 */
export function DeleteButton({ what, run, onDone, label = "Delete" }: { what: string; run: () => Promise<unknown>; onDone?: () => void; label?: string }) {
  const act = useAction(onDone);
  const question = `${joinWithoutRepeat(label, what)}?`;
  return html`<span class="inline-action">
    <button type="button" class="small danger" aria-label=${joinWithoutRepeat(label, what)} disabled=${act.busy} onClick=${() => {
      if (confirm(question)) void act.run(async () => void (await run()));
    }}>${label}</button>
    <${ErrorBox} error=${act.error} />
  </span>`;
}

/** "Delete user" + "user bob" → "Delete user bob": the noun ending the label is not said twice ("virtual host" too). */
export function joinWithoutRepeat(label: string, what: string): string {
  const words = label.split(" ");
  for (let k = words.length - 1; k >= 1; k--) {
    const noun = words.slice(words.length - k).join(" ");
    if (what.toLowerCase().startsWith(`${noun.toLowerCase()} `)) return `${label} ${what.slice(noun.length + 1)}`;
  }
  return `${label} ${what}`;
}

export interface PermissionRecord {
  user: string;
  vhost: string;
  configure: string;
  write: string;
  read: string;
}

/** Three patterns with RabbitMQ's defaults (.* for all) and the spec's typical profiles one click away. */
const PROFILES: ReadonlyArray<readonly [string, string, string, string]> = [
  ["Full access", ".*", ".*", ".*"],
  ["Read only", "^$", "^$", ".*"],
  ["Nothing", "^$", "^$", "^$"],
];

/**
 * Sets a permission: `fixed` says which side the page already knows (a user page picks the
 * vhost; a vhost page picks the user) and `choices` are the names for the other side.
 */
export function PermissionForm({ fixed, choices, onDone }: { fixed: { user: string } | { vhost: string }; choices: readonly string[]; onDone: () => void }) {
  const { api } = useApp();
  const [other, setOther] = useState("");
  const [configure, setConfigure] = useState(".*");
  const [write, setWrite] = useState(".*");
  const [read, setRead] = useState(".*");
  const act = useAction(onDone);
  const pickLabel = "user" in fixed ? "Virtual host" : "User";
  const chosen = other || choices[0] || "";
  const submit = (e: Event): void => {
    e.preventDefault();
    const user = "user" in fixed ? fixed.user : chosen;
    const vhost = "vhost" in fixed ? fixed.vhost : chosen;
    void act.run(async () => {
      await api.put(apiPath`/permissions/${vhost}/${user}`, { configure, write, read });
      return `Permission of ${user} in ${vhost} set.`;
    });
  };
  if (choices.length === 0) return html`<p class="muted">No ${pickLabel.toLowerCase()} to give a permission in.</p>`;
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Set permission">
    <label class="field">${pickLabel}
      <select name=${"user" in fixed ? "vhost" : "user"} value=${chosen} onChange=${(e: Event) => setOther((e.target as HTMLSelectElement).value)}>
        ${choices.map((c) => html`<option value=${c}>${c}</option>`)}
      </select>
    </label>
    <div class="field-row">
      <${TextField} label="Configure regexp" name="configure" value=${configure} set=${setConfigure} />
      <${TextField} label="Write regexp" name="write" value=${write} set=${setWrite} />
      <${TextField} label="Read regexp" name="read" value=${read} set=${setRead} />
    </div>
    <p class="hint">Patterns match resource names anywhere unless anchored (<code>^app_</code>); <code>^$</code> matches only the default exchange's empty name.
      ${PROFILES.map(
        ([label, c, w, r]) => html` <button type="button" class="link" onClick=${() => {
          setConfigure(c);
          setWrite(w);
          setRead(r);
        }}>${label}</button>`,
      )}</p>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Set permission</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}

/** Permission records as a table, each with Clear; `show` is the column that varies. */
export function PermissionsTable({ records, show, onChange }: { records: readonly PermissionRecord[]; show: "user" | "vhost"; onChange: () => void }) {
  const { api } = useApp();
  if (records.length === 0) return html`<p class="muted">No permissions.</p>`;
  return html`<table class="grid" aria-label="Permissions"><thead><tr>
      <th>${show === "user" ? "User" : "Virtual host"}</th><th>Configure</th><th>Write</th><th>Read</th><th><span class="sr-only">Actions</span></th>
    </tr></thead><tbody>
      ${records.map(
        (p) => html`<tr key=${p.vhost + "\u0000" + p.user}>
          <td><a href=${show === "user" ? href("admin", "users", p.user) : href("admin", "vhosts", p.vhost)}>${show === "user" ? p.user : p.vhost}</a></td>
          <td><code>${p.configure}</code></td><td><code>${p.write}</code></td><td><code>${p.read}</code></td>
          <td class="row-actions"><a class="small" href=${href("admin", "explain", p.user, p.vhost)}>Explain…</a>
            <${DeleteButton} label="Clear" what=${`the permission of ${p.user} in ${p.vhost}`} run=${() => api.del(apiPath`/permissions/${p.vhost}/${p.user}`)} onDone=${onChange} /></td>
        </tr>`,
      )}
    </tbody></table>`;
}
