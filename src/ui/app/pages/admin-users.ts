/**
 * Admin › Users: every user with its tags, whether it can log in with a password and the vhosts
 * it may use (from one /api/permissions request, not one per row), and adding a user.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame, parseTagText, TagList, TagsField, type PermissionRecord } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { SelectField, TextField } from "../components/fields.js";
import { Section } from "../components/kv.js";
import { ListView, type Column } from "../components/list-view.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href } from "../router.js";

export interface UserRecord {
  name: string;
  tags: string[] | string;
  password_hash: string;
  hashing_algorithm: string;
  limits?: Record<string, number>;
}

export function AdminUsersPage() {
  return html`<${AdminFrame} seg="users" title="Users"><${AdminUsersBody} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function AdminUsersBody() {
  const { api } = useApp();
  const [reloadKey, setReloadKey] = useState(0);
  const perms = useLive(() => api.get<PermissionRecord[]>("/permissions"), [reloadKey]);
  const vhostsOf = new Map<string, string[]>();
  for (const p of perms.data ?? []) vhostsOf.set(p.user, [...(vhostsOf.get(p.user) ?? []), p.vhost]);
  const columns: Column<UserRecord>[] = [
    { key: "name", label: "Name", render: (u) => html`<a href=${href("admin", "users", u.name)}>${u.name}</a>` },
    { key: "tags", label: "Tags", render: (u) => html`<${TagList} tags=${u.tags} />` },
    { key: "password_hash", label: "Password", sortable: false, render: (u) => (u.password_hash ? "yes" : html`<span class="muted">none (cannot log in)</span>`) },
    {
      key: "vhosts",
      label: "Can access virtual hosts",
      sortable: false,
      render: (u) => {
        const v = vhostsOf.get(u.name);
        return v ? v.join(", ") : html`<span class="warn-text">No access</span>`;
      },
    },
  ];
  return html`    <${ErrorBox} error=${perms.error} />
    <${ListView} id="admin-users" noun="users" path=${() => "/users"} columns=${columns} rowKey=${(u: UserRecord) => u.name} defaultSort="name" reloadKey=${reloadKey} />
    <${Section} title="Add a user" open=${false}><${AddUser} added=${() => setReloadKey((k) => k + 1)} /><//>`;
}

function AddUser({ added }: { added: () => void }) {
  const { api } = useApp();
  const [name, setName] = useState("");
  const [mode, setMode] = useState("password");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [tags, setTags] = useState("management");
  const act = useAction(added);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      if (mode === "password" && password !== confirmation) throw new Error("The two passwords differ.");
      if (mode === "password" && password === "") throw new Error("Give a password, or choose “No password”.");
      const body: Record<string, unknown> = { tags: parseTagText(tags).join(",") };
      if (mode === "password") body["password"] = password;
      else body["password_hash"] = "";
      await api.put(apiPath`/users/${name}`, body);
      const added = name;
      setName("");
      setPassword("");
      setConfirmation("");
      return `User ${added} added. It has no permissions yet: open it to give some.`;
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Add user">
    <${TextField} label="Username" name="username" value=${name} set=${setName} required=${true} />
    <${SelectField} label="Login" name="login" value=${mode} set=${setMode} options=${[["password", "Password"], ["none", "No password (cannot log in)"]]} />
    ${mode === "password"
      ? html`<div class="field-row">
          <${TextField} label="Password" name="password" type="password" value=${password} set=${setPassword} />
          <${TextField} label="Password (again)" name="password2" type="password" value=${confirmation} set=${setConfirmation} />
        </div>`
      : null}
    <${TagsField} value=${tags} set=${setTags} />
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Add user</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
