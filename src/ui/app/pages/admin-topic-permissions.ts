/**
 * Admin › Topic permissions: every (user, vhost, topic exchange) record (GET /api/topic-permissions,
 * narrowed to the selected virtual host), clearing one, and setting one. Administrators only, as
 * the API.
 */
import { AdminFrame } from "../components/admin-kit.js";
import { ErrorBox } from "../components/error-box.js";
import { Section } from "../components/kv.js";
import { TopicPermissionForm, TopicPermissionsTable } from "../components/topic-permissions.js";
import type { TopicPermission } from "../access.js";
import { useApp } from "../app-context.js";
import { html } from "../html.js";
import { useLive } from "../live.js";

export function AdminTopicPermissionsPage() {
  return html`<${AdminFrame} seg="topic-permissions" title="Topic permissions"><${Body} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function Body() {
  const { api, vhost } = useApp();
  const list = useLive(() => api.get<TopicPermission[]>("/topic-permissions"), []);
  const users = useLive(() => api.get<Array<{ name: string }>>("/users", { columns: "name" }), [], { live: false });
  const vhosts = useLive(() => api.get<Array<{ name: string }>>("/vhosts", { columns: "name" }), [], { live: false });
  const shown = (list.data ?? []).filter((t) => vhost === "" || t.vhost === vhost);
  return html`<p class="lead">On a topic exchange, publishing needs the routing key to match the user's write pattern and binding the binding key its read pattern. ${vhost ? html`In virtual host <strong>${vhost}</strong> (choose “All” above for every virtual host).` : null}</p>
    <${ErrorBox} error=${list.error ?? users.error ?? vhosts.error} />
    ${list.data ? html`<${TopicPermissionsTable} records=${shown} show=${["user", "vhost"]} onChange=${list.reload} />` : null}
    <${Section} title="Set a topic permission">
      ${users.data && vhosts.data
        ? html`<${TopicPermissionForm} users=${users.data.map((u) => u.name)} vhosts=${vhost ? [vhost] : vhosts.data.map((v) => v.name)} onDone=${list.reload} />`
        : null}
    <//>`;
}
