/**
 * Admin › Feature flags: every flag the broker reports (GET /api/feature-flags) with its state,
 * stability and description, and an Enable button on a disabled flag for administrators (the only
 * role the API lets enable one: PUT /api/feature-flags/{name}/enable). An unavailable flag names a
 * RabbitMQ feature Coney does not have; enabling cannot change that, so it is not offered.
 */
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { html } from "../html.js";
import { useLive } from "../live.js";

export interface FeatureFlagRecord {
  name: string;
  desc: string;
  doc_url: string;
  state: "enabled" | "disabled" | "unavailable" | string;
  stability: "stable" | "experimental" | string;
  provided_by: string;
}

export function AdminFeatureFlagsPage() {
  return html`<${AdminFrame} seg="feature-flags" title="Feature flags"><${FeatureFlagsBody} /><//>`;
}

function FeatureFlagsBody() {
  const { api, tags } = useApp();
  const flags = useLive(() => api.get<FeatureFlagRecord[]>("/feature-flags"), [], { live: false });
  const act = useAction(flags.reload);
  const admin = tags.includes("administrator");
  const enable = (f: FeatureFlagRecord): void => {
    if (f.stability === "experimental" && !confirm(`Feature flag ${f.name} is experimental: once enabled it cannot be disabled. Enable it?`)) return;
    void act.run(async () => {
      await api.put(apiPath`/feature-flags/${f.name}/enable`);
      return `Feature flag ${f.name} enabled.`;
    });
  };
  const list = flags.data ?? [];
  const disabled = list.filter((f) => f.state === "disabled").length;
  const lead = "Each flag names a feature the nodes of a RabbitMQ cluster turn on together. Coney reports every RabbitMQ 3.10 flag: ";
  return html`<p class="lead">${lead}<strong>enabled</strong> where it has the feature, <strong>unavailable</strong> where it does not.</p>
    <${ErrorBox} error=${flags.error} />
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
    ${flags.data
      ? html`${disabled > 0 && !admin ? html`<p class="muted">${disabled === 1 ? "One flag is" : `${disabled} flags are`} disabled: an administrator may enable ${disabled === 1 ? "it" : "them"}.</p>` : null}
        <table class="grid" aria-label="Feature flags"><thead><tr><th>Name</th><th>State</th><th>Stability</th><th>Provided by</th><th>Description</th></tr></thead>
          <tbody>${list.map(
            (f) => html`<tr key=${f.name} data-flag=${f.name}>
              <td><code>${f.name}</code></td>
              <td><span class=${`state state-${f.state}`}>${f.state}</span>
                ${f.state === "disabled" && admin ? html` <button type="button" class="small primary" disabled=${act.busy} onClick=${() => enable(f)} aria-label=${`Enable ${f.name}`}>Enable</button>` : null}</td>
              <td>${f.stability}</td>
              <td>${f.provided_by}</td>
              <td>${f.desc}${f.doc_url ? html` <a href=${f.doc_url} target="_blank" rel="noopener noreferrer">(docs)</a>` : null}</td>
            </tr>`,
          )}</tbody></table>`
      : flags.loading ? html`<p class="muted">Loading…</p>` : null}`;
}
