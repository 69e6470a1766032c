/**
 * Admin › one user: its tags (changed without touching the password: the API clears a password
 * that a PUT omits, so the form sends the stored hash back), a new password or none, its
 * permissions and topic permissions per vhost (set, clear), its limits, and deleting it.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame, DeleteButton, parseTagText, TagList, TagsField, type PermissionRecord } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { TextField } from "../components/fields.js";
import { KvTable, Section } from "../components/kv.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href, navigate } from "../router.js";
import type { PageProps } from "../page-props.js";
import type { UserRecord } from "./admin-users.js";
import type { TopicPermission } from "../access.js";
import { PermissionSections } from "../components/permission-sections.js";

const tagsOf = (u: UserRecord): string[] => (Array.isArray(u.tags) ? u.tags : parseTagText(String(u.tags)));

export function AdminUserPage({ params }: PageProps) {
  const name = params["name"] ?? "";
  return html`<${AdminFrame} seg="users" title=${`User ${name}`}><${AdminUserBody} params=${params} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function AdminUserBody({ params }: PageProps) {
  const name = params["name"] ?? "";
  const { api, user: me } = useApp();
  const user = useLive(() => api.get<UserRecord>(apiPath`/users/${name}`), [name], { live: false });
  const perms = useLive(() => api.get<PermissionRecord[]>(apiPath`/users/${name}/permissions`), [name], { live: false });
  const vhosts = useLive(() => api.get<Array<{ name: string }>>("/vhosts", { columns: "name" }), [], { live: false });
  const topics = useLive(() => api.get<TopicPermission[]>(apiPath`/users/${name}/topic-permissions`), [name], { live: false });
  const u = user.data;
  return html`    <p class="lead"><a href=${href("admin", "users")}>All users</a></p>
    <${ErrorBox} error=${user.error} />
    ${u
      ? html`<div class="admin-summary"><${KvTable} label="User" rows=${[
          ["Tags", html`<${TagList} tags=${u.tags} />`],
          ["Password", u.password_hash ? `set (${u.hashing_algorithm})` : "none: this user cannot log in with a password"],
          ["Limits", Object.keys(u.limits ?? {}).length ? Object.entries(u.limits ?? {}).map(([k, v]) => `${k}: ${v}`).join(", ") : html`<span class="muted">none</span> (<a href=${href("admin", "limits")}>Limits</a>)`],
        ]} /></div>
        <${PermissionSections} of=${{ user: name }} choices=${(vhosts.data ?? []).map((v) => v.name)} perms=${perms} topics=${topics} />
        <${Section} title="Tags"><${EditTags} user=${u} onDone=${user.reload} /><//>
        <${Section} title="Password" open=${false}><${EditPassword} user=${u} onDone=${user.reload} /><//>
        <${Section} title="Delete this user" open=${false}>
          ${name === me ? html`<p class="warn-text">This is the user you are logged in as: deleting it ends this session.</p>` : null}
          <${DeleteButton} what=${`user ${name}`} run=${() => api.del(apiPath`/users/${name}`)} onDone=${() => navigate(href("admin", "users"))} label="Delete user" />
        <//>`
      : null}`;
}

function EditTags({ user, onDone }: { user: UserRecord; onDone: () => void }) {
  const { api } = useApp();
  const [tags, setTags] = useState(tagsOf(user).join(", "));
  const act = useAction(onDone);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      // Sending the stored hash keeps the password: a PUT without one would remove it.
      await api.put(apiPath`/users/${user.name}`, { tags: parseTagText(tags).join(","), password_hash: user.password_hash, hashing_algorithm: user.hashing_algorithm });
      return "Tags updated.";
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Update tags">
    <${TagsField} value=${tags} set=${setTags} />
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Update tags</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}

function EditPassword({ user, onDone }: { user: UserRecord; onDone: () => void }) {
  const { api } = useApp();
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const act = useAction(onDone);
  const put = (body: Record<string, unknown>, done: string): void => {
    void act.run(async () => {
      await api.put(apiPath`/users/${user.name}`, { tags: tagsOf(user).join(","), ...body });
      setPassword("");
      setConfirmation("");
      return done;
    });
  };
  const submit = (e: Event): void => {
    e.preventDefault();
    if (password === "" || password !== confirmation) {
      void act.run(() => Promise.reject(new Error(password === "" ? "Type the new password twice." : "The two passwords differ.")));
      return;
    }
    put({ password }, "Password changed. Open connections stay open; new logins need the new password.");
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Change password">
    <div class="field-row">
      <${TextField} label="New password" name="password" type="password" value=${password} set=${setPassword} />
      <${TextField} label="New password (again)" name="password2" type="password" value=${confirmation} set=${setConfirmation} />
    </div>
    <div class="form-actions">
      <button type="submit" class="primary" disabled=${act.busy}>Change password</button>
      <button type="button" disabled=${act.busy || user.password_hash === ""} onClick=${() => {
        if (confirm(`Remove the password of ${user.name}? It will no longer be able to log in.`)) put({ password_hash: "" }, "Password removed.");
      }}>Remove password</button>
    </div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
