/**
 * Admin › Policies and Admin › Operator policies: the list (by vhost, highest priority first),
 * adding one (pattern, apply-to, priority, definition keys with help) and deleting. Policies need
 * the policymaker tag to change; operator policies (limits operators impose over users'
 * policies) need administrator, and accept only the keys an operator may cap.
 */
import { useEffect, useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { hasTag, useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame, DeleteButton } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { argsObject, ArgsEditor, SelectField, TextField, type ArgRow, type ArgType } from "../components/fields.js";
import { Section } from "../components/kv.js";
import { VhostField } from "../components/vhost-select.js";
import { fmtValue } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";

interface PolicyRecord {
  vhost: string;
  name: string;
  pattern: string;
  "apply-to": string;
  priority: number;
  definition: Record<string, unknown>;
}

interface Kind {
  readonly seg: string;
  readonly title: string;
  readonly api: string;
  readonly writeTag: string;
  readonly keys: ReadonlyArray<readonly [string, ArgType, string]>;
  readonly applyTo: ReadonlyArray<readonly [string, string]>;
}

const QUEUE_KEYS: ReadonlyArray<readonly [string, ArgType, string]> = [
  ["max-length", "number", "messages a queue keeps"],
  ["max-length-bytes", "number", "body bytes a queue keeps"],
  ["overflow", "string", "drop-head, reject-publish or reject-publish-dlx"],
  ["message-ttl", "number", "ms a message may wait"],
  ["expires", "number", "ms an unused queue lives"],
  ["dead-letter-exchange", "string", "where dead letters go"],
  ["dead-letter-routing-key", "string", "their routing key"],
  ["delivery-limit", "number", "redeliveries before dead-lettering (quorum)"],
  ["queue-mode", "string", "default or lazy"],
  ["consumer-timeout", "number", "ms a delivery may stay unacknowledged"],
  ["max-in-memory-length", "number", "messages kept in memory (quorum)"],
  ["alternate-exchange", "string", "for exchanges: where unroutable messages go"],
  ["federation-upstream", "string", "federate from this upstream (Admin › Federation upstreams)"],
  ["federation-upstream-set", "string", "federate from this upstream set, or all"],
];

const OPERATOR_KEYS = QUEUE_KEYS.filter(([k]) => ["max-length", "max-length-bytes", "message-ttl", "expires", "max-in-memory-length", "delivery-limit"].includes(k));

const ALL_APPLY_TO: ReadonlyArray<readonly [string, string]> = [
  ["all", "Exchanges and queues"],
  ["queues", "Queues (all types)"],
  ["classic_queues", "Classic queues"],
  ["quorum_queues", "Quorum queues"],
  ["streams", "Streams"],
  ["exchanges", "Exchanges"],
];

const POLICIES: Kind = { seg: "policies", title: "Policies", api: "/policies", writeTag: "policymaker", keys: QUEUE_KEYS, applyTo: ALL_APPLY_TO };
const OPERATOR: Kind = {
  seg: "operator-policies",
  title: "Operator policies",
  api: "/operator-policies",
  writeTag: "administrator",
  keys: OPERATOR_KEYS,
  applyTo: ALL_APPLY_TO.filter(([v]) => v !== "all" && v !== "exchanges"),
};

const policyPath = (kind: Kind, vhost: string, name: string): string => `${kind.api}${apiPath`/${vhost}/${name}`}`;

export const AdminPoliciesPage = () => html`<${PoliciesOf} kind=${POLICIES} />`;
export const AdminOperatorPoliciesPage = () => html`<${PoliciesOf} kind=${OPERATOR} />`;

function PoliciesOf({ kind }: { kind: Kind }) {
  return html`<${AdminFrame} seg=${kind.seg} title=${kind.title}><${PoliciesBody} kind=${kind} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function PoliciesBody({ kind }: { kind: Kind }) {
  const { api, vhost, tags } = useApp();
  const canWrite = hasTag(tags, kind.writeTag);
  const list = useLive(() => api.get<PolicyRecord[]>(vhost ? `${kind.api}${apiPath`/${vhost}`}` : kind.api), [vhost, kind.api]);
  // Edit fills the form with a row (a new key remounts it); saving under the same name updates.
  const [editing, setEditing] = useState<{ policy: PolicyRecord | null; key: number }>({ policy: null, key: 0 });
  useEffect(() => {
    if (editing.policy) document.getElementById(`${kind.seg}-form`)?.scrollIntoView({ block: "start" });
  }, [editing.key]);
  const sorted = [...(list.data ?? [])].sort((a, b) => a.vhost.localeCompare(b.vhost) || b.priority - a.priority || a.name.localeCompare(b.name));
  return html`    ${vhost ? html`<p class="lead">In virtual host <strong>${vhost}</strong> (choose “All” above for every virtual host).</p>` : null}
    <${ErrorBox} error=${list.error} />
    ${list.data
      ? sorted.length === 0
        ? html`<p class="muted">No ${kind.title.toLowerCase()}.</p>`
        : html`<div class="table-wrap admin-table"><table class="grid" aria-label=${kind.title}><thead><tr>
            <th>Virtual host</th><th>Name</th><th>Pattern</th><th>Apply to</th><th>Definition</th><th class="num">Priority</th>${canWrite ? html`<th><span class="sr-only">Actions</span></th>` : null}
          </tr></thead><tbody>
            ${sorted.map(
              (p) => html`<tr key=${p.vhost + "\u0000" + p.name}>
                <td>${p.vhost}</td><td>${p.name}</td><td><code>${p.pattern}</code></td><td>${p["apply-to"]}</td>
                <td>${Object.entries(p.definition).map(([k, v]) => html`<div><span class="def-key">${k}</span>: ${fmtValue(v)}</div>`)}</td>
                <td class="num">${p.priority}</td>
                ${canWrite
                  ? html`<td class="row-actions">
                      <button type="button" class="small" aria-label=${`Edit ${p.name} in ${p.vhost}`} onClick=${() => setEditing({ policy: p, key: editing.key + 1 })}>Edit</button>
                      <${DeleteButton} what=${`policy ${p.name} in ${p.vhost}`} run=${() => api.del(policyPath(kind, p.vhost, p.name))} onDone=${list.reload} />
                    </td>`
                  : null}
              </tr>`,
            )}
          </tbody></table></div>`
      : null}
    ${canWrite
      ? html`<div id=${`${kind.seg}-form`}><${Section} title=${kind === OPERATOR ? "Add / update an operator policy" : "Add / update a policy"} open=${editing.policy !== null}>
          <${AddPolicy} key=${editing.key} kind=${kind} initial=${editing.policy} added=${list.reload} />
        <//></div>`
      : html`<p class="hint">Changing ${kind.title.toLowerCase()} needs the ${kind.writeTag} tag.</p>`}`;
}

/** A definition value as an editor row: numbers, booleans and lists keep their type. */
function rowOf(key: string, v: unknown): ArgRow {
  if (typeof v === "number") return { key, value: String(v), type: "number" };
  if (typeof v === "boolean") return { key, value: String(v), type: "boolean" };
  if (Array.isArray(v)) return { key, value: JSON.stringify(v), type: "list" };
  return { key, value: typeof v === "string" ? v : JSON.stringify(v), type: "string" };
}

function AddPolicy({ kind, initial, added }: { kind: Kind; initial: PolicyRecord | null; added: () => void }) {
  const { api, vhost: selected, tags, access } = useApp();
  const [vhost, setVhost] = useState(initial?.vhost ?? selected);
  // A policymaker sets policies in the vhosts it may use (RabbitMQ's is_authorized_policies); administrators anywhere.
  const only = hasTag(tags, "administrator") || !access ? undefined : access.vhosts.map((v) => v.name);
  const [name, setName] = useState(initial?.name ?? "");
  const [pattern, setPattern] = useState(initial?.pattern ?? "");
  const [applyTo, setApplyTo] = useState(initial?.["apply-to"] ?? kind.applyTo[0]?.[0] ?? "all");
  const [priority, setPriority] = useState(String(initial?.priority ?? 0));
  const [rows, setRows] = useState<ArgRow[]>(Object.entries(initial?.definition ?? {}).map(([k, v]) => rowOf(k, v)));
  const act = useAction(added);
  const addKey = (key: string, type: ArgType): void => setRows([...rows.filter((r) => r.key && r.key !== key), { key, value: "", type }]);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      const n = Number(priority);
      if (!Number.isInteger(n)) throw new Error(`Priority: "${priority}" is not a whole number.`);
      const definition = argsObject(rows);
      if (Object.keys(definition).length === 0) throw new Error("Add at least one definition key.");
      await api.put(policyPath(kind, vhost, name), { pattern, "apply-to": applyTo, priority: n, definition });
      return `${kind === OPERATOR ? "Operator policy" : "Policy"} ${name} saved in ${vhost}.`;
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label=${kind === OPERATOR ? "Add operator policy" : "Add policy"}>
    <${VhostField} value=${vhost} set=${setVhost} only=${only} />
    <${TextField} label="Name" name="name" value=${name} set=${setName} required=${true} />
    <${TextField} label="Pattern" name="pattern" value=${pattern} set=${setPattern} required=${true} placeholder="^orders\\." hint="A regular expression over queue or exchange names." />
    <div class="field-row">
      <${SelectField} label="Apply to" name="apply-to" value=${applyTo} set=${setApplyTo} options=${kind.applyTo} />
      <${TextField} label="Priority" name="priority" type="number" value=${priority} set=${setPriority} hint="The highest-priority matching policy applies." />
    </div>
    <${ArgsEditor} label="Definition" rows=${rows} set=${setRows} />
    <div class="arg-help" role="group" aria-label="Known definition keys">
      <p class="hint">Add a key:</p>
      <ul>${kind.keys.map(([k, type, help]) => html`<li><button type="button" class="link" onClick=${() => addKey(k, type)}>${k}</button> <span class="hint">${help}</span></li>`)}</ul>
    </div>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Save</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
