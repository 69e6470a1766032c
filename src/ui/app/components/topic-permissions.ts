/**
 * Topic permissions (RabbitMQ's topic authorisation) for the Admin pages: a table of records with
 * Clear and the explainer one click away, and the form that sets one for a (user, vhost, topic
 * exchange). On a topic exchange, publishing needs the routing key to match the write pattern and
 * binding the binding key the read pattern; a user with no record for an exchange is not
 * restricted on it. Patterns may use {username} and {vhost}.
 */
import { useEffect, useState } from "preact/hooks";
import type { TopicPermission } from "../access.js";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { html } from "../html.js";
import { href } from "../router.js";
import { useAction } from "./action.js";
import { DeleteButton } from "./admin-kit.js";
import { ErrorBox, Notice } from "./error-box.js";
import { TextField } from "./fields.js";

/** `show`: the columns that vary ("user" on a vhost's page, "vhost" on a user's, both on the list). */
export function TopicPermissionsTable({ records, show, onChange }: { records: readonly TopicPermission[]; show: ReadonlyArray<"user" | "vhost">; onChange: () => void }) {
  const { api } = useApp();
  if (records.length === 0) return html`<p class="muted">No topic permissions: routing keys are not restricted.</p>`;
  return html`<div class="table-wrap admin-table"><table class="grid" aria-label="Topic permissions"><thead><tr>
      ${show.includes("user") ? html`<th>User</th>` : null}${show.includes("vhost") ? html`<th>Virtual host</th>` : null}<th>Exchange</th><th>Write regexp</th><th>Read regexp</th><th><span class="sr-only">Actions</span></th>
    </tr></thead><tbody>
      ${records.map(
        (t) => html`<tr key=${`${t.vhost}\u0000${t.user}\u0000${t.exchange}`}>
          ${show.includes("user") ? html`<td><a href=${href("admin", "users", t.user)}>${t.user}</a></td>` : null}
          ${show.includes("vhost") ? html`<td><a href=${href("admin", "vhosts", t.vhost)}>${t.vhost}</a></td>` : null}
          <td>${t.exchange}</td><td><code>${t.write}</code></td><td><code>${t.read}</code></td>
          <td class="row-actions"><a class="small" href=${href("admin", "explain", t.user, t.vhost)}>Explain…</a>
            <${DeleteButton} label="Clear" what=${`the topic permission of ${t.user} on ${t.exchange} in ${t.vhost}`} run=${() => api.del(apiPath`/topic-permissions/${t.vhost}/${t.user}/${t.exchange}`)} onDone=${onChange} /></td>
        </tr>`,
      )}
    </tbody></table></div>`;
}

/**
 * Sets a topic permission. `user` and `vhost` are fixed by the page when given; otherwise picked
 * from `users` and `vhosts`. The exchange is one of the chosen vhost's topic exchanges.
 */
export function TopicPermissionForm({ user: fixedUser, vhost: fixedVhost, users, vhosts, onDone }: { user?: string; vhost?: string; users: readonly string[]; vhosts: readonly string[]; onDone: () => void }) {
  const { api } = useApp();
  const [user, setUser] = useState(fixedUser ?? "");
  const [vhost, setVhost] = useState(fixedVhost ?? "");
  const [exchange, setExchange] = useState("amq.topic");
  const [write, setWrite] = useState(".*");
  const [read, setRead] = useState(".*");
  const [topics, setTopics] = useState<string[]>([]);
  const act = useAction(onDone);
  const chosenUser = fixedUser ?? (user || users[0] || "");
  const chosenVhost = fixedVhost ?? (vhost || vhosts[0] || "");
  useEffect(() => {
    if (!chosenVhost) return;
    api.get<Array<{ name: string; type: string }>>(apiPath`/exchanges/${chosenVhost}`, { columns: "name,type" }).then(
      (xs) => setTopics(xs.filter((x) => x.type === "topic").map((x) => x.name)),
      () => setTopics([]),
    );
  }, [chosenVhost]);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      await api.put(apiPath`/topic-permissions/${chosenVhost}/${chosenUser}`, { exchange, write, read });
      return `Topic permission of ${chosenUser} on ${exchange} in ${chosenVhost} set.`;
    });
  };
  if (!chosenUser || !chosenVhost) return html`<p class="muted">No ${chosenUser ? "virtual host" : "user"} to set a topic permission for.</p>`;
  const pick = (label: string, name: string, value: string, set: (v: string) => void, choices: readonly string[]) =>
    html`<label class="field">${label}<select name=${name} value=${value} onChange=${(e: Event) => set((e.target as HTMLSelectElement).value)}>${choices.map((c) => html`<option value=${c}>${c}</option>`)}</select></label>`;
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Set topic permission">
    <div class="field-row">
      ${fixedUser === undefined ? pick("User", "user", chosenUser, setUser, users) : null}
      ${fixedVhost === undefined ? pick("Virtual host", "vhost", chosenVhost, setVhost, vhosts) : null}
      <label class="field">Exchange
        <input name="exchange" list="topic-exchanges" required value=${exchange} onInput=${(e: Event) => setExchange((e.target as HTMLInputElement).value)} />
        <datalist id="topic-exchanges">${topics.map((t) => html`<option value=${t} />`)}</datalist>
      </label>
    </div>
    <div class="field-row">
      <${TextField} label="Write regexp" name="write" value=${write} set=${setWrite} hint="Routing keys it may publish with." />
      <${TextField} label="Read regexp" name="read" value=${read} set=${setRead} hint="Binding keys it may bind with." />
    </div>
    <p class="hint">Topic permissions apply to topic exchanges only (here: ${topics.length ? topics.join(", ") : "none in this virtual host"}). Patterns match anywhere unless anchored and may use <code>{username}</code> and <code>{vhost}</code>.</p>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Set topic permission</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
