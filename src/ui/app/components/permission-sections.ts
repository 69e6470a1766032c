/**
 * The permissions and topic permissions of one user (Admin › user) or of one virtual host
 * (Admin › virtual host): the same two sections seen from either side, each a table of the other
 * side's entries and a form to set one more.
 */
import type { TopicPermission } from "../access.js";
import { html } from "../html.js";
import type { Live } from "../live.js";
import { PermissionForm, PermissionsTable, type PermissionRecord } from "./admin-kit.js";
import { ErrorBox } from "./error-box.js";
import { Section } from "./kv.js";
import { TopicPermissionForm, TopicPermissionsTable } from "./topic-permissions.js";

export function PermissionSections({ of, choices, perms, topics }: {
  /** The side the page is about. */
  of: { user: string } | { vhost: string };
  /** The other side's names a form may pick from (vhosts on a user's page, users on a vhost's). */
  choices: readonly string[];
  perms: Live<PermissionRecord[]>;
  topics: Live<TopicPermission[]>;
}) {
  const other = "user" in of ? "vhost" : "user";
  const topicForm = "user" in of ? { user: of.user, users: [of.user], vhosts: choices } : { vhost: of.vhost, users: choices, vhosts: [of.vhost] };
  return html`<${Section} title="Permissions">
      <${ErrorBox} error=${perms.error} />
      ${perms.data ? html`<${PermissionsTable} records=${perms.data} show=${other} onChange=${perms.reload} />` : null}
      <h3>Set permission</h3>
      <${PermissionForm} fixed=${of} choices=${choices} onDone=${perms.reload} />
    <//>
    <${Section} title="Topic permissions">
      <${ErrorBox} error=${topics.error} />
      ${topics.data ? html`<${TopicPermissionsTable} records=${topics.data} show=${[other]} onChange=${topics.reload} />` : null}
      <h3>Set topic permission</h3>
      <${TopicPermissionForm} ...${topicForm} onDone=${topics.reload} />
    <//>`;
}
