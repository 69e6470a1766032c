/**
 * Admin › Limits: every vhost's limits (max-connections, max-queues) and every user's
 * (max-connections, max-channels). Anyone on the Admin pages sees the vhost limits of the vhosts
 * it may use; setting them, and user limits at all, need the administrator tag (as the API).
 */
import { apiPath } from "../api.js";
import { hasTag, useApp } from "../app-context.js";
import { AdminFrame } from "../components/admin-kit.js";
import { ErrorBox } from "../components/error-box.js";
import { Section } from "../components/kv.js";
import { LimitsEditor } from "../components/limits-editor.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { VHOST_LIMITS } from "./admin-vhost.js";
import type { LimitsRecord } from "./admin-vhosts.js";

const USER_LIMITS: ReadonlyArray<readonly [string, string]> = [
  ["max-connections", "Max connections"],
  ["max-channels", "Max channels"],
];

export function AdminLimitsPage() {
  return html`<${AdminFrame} seg="limits" title="Limits"><${AdminLimitsBody} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function AdminLimitsBody() {
  const { api, tags } = useApp();
  const admin = hasTag(tags, "administrator");
  const vhostLimits = useLive(() => api.get<LimitsRecord[]>("/vhost-limits"), []);
  const vhosts = useLive(() => api.get<Array<{ name: string }>>("/vhosts", { columns: "name" }), [], { live: false });
  return html`    <${Section} title="Virtual host limits">
      <${ErrorBox} error=${vhostLimits.error ?? vhosts.error} />
      ${vhostLimits.data
        ? html`<${LimitsEditor} noun="Virtual host" records=${vhostLimits.data.map((l) => ({ owner: l.vhost, value: l.value }))} owners=${(vhosts.data ?? []).map((v) => v.name)}
            known=${VHOST_LIMITS} path=${(owner: string, limit: string) => apiPath`/vhost-limits/${owner}/${limit}`} canEdit=${admin} onDone=${vhostLimits.reload} />`
        : null}
      ${admin ? null : html`<p class="hint">Changing limits needs the administrator tag.</p>`}
    <//>
    ${admin ? html`<${Section} title="User limits"><${UserLimits} /><//>` : null}`;
}

function UserLimits() {
  const { api } = useApp();
  const limits = useLive(() => api.get<Array<{ user: string; value: Record<string, number> }>>("/user-limits"), []);
  const users = useLive(() => api.get<Array<{ name: string }>>("/users", { columns: "name" }), [], { live: false });
  return html`<${ErrorBox} error=${limits.error ?? users.error} />
    ${limits.data
      ? html`<${LimitsEditor} noun="User" records=${limits.data.map((l) => ({ owner: l.user, value: l.value }))} owners=${(users.data ?? []).map((u) => u.name)}
          known=${USER_LIMITS} path=${(owner: string, limit: string) => apiPath`/user-limits/${owner}/${limit}`} canEdit=${true} onDone=${limits.reload} />`
      : null}
    <p class="hint">max-channels counts a user's channels over all its connections.</p>`;
}
