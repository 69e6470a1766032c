/**
 * Queues: the server-paged list (10,000 queues cost one page of rows; the answer carries only the
 * columns shown) and adding a queue with type, durability and arguments.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { vhostAccess } from "../access.js";
import { useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { ArgsEditor, argsObject, SelectField, TextField, type ArgRow } from "../components/fields.js";
import { AddSection } from "../components/add-section.js";
import { ListView, type Column } from "../components/list-view.js";
import { useManyNodes, withNodeColumn } from "../components/node-column.js";
import { NamePattern, VhostField } from "../components/vhost-select.js";
import { fmtNum, fmtRate, rateOf } from "../format.js";
import { html } from "../html.js";
import { href } from "../router.js";
import { Features } from "./exchanges.js";
import { QUEUE_ARGUMENTS } from "./queue-arguments.js";

export interface QueueRow {
  name: string;
  vhost: string;
  type: string;
  durable: boolean;
  auto_delete: boolean;
  exclusive: boolean;
  arguments: Record<string, unknown>;
  policy: string | null;
  state: string;
  consumers: number;
  messages: number;
  messages_ready: number;
  messages_unacknowledged: number;
  message_stats?: Record<string, unknown>;
  /** The node that leads it (shown when the broker has more than one). */
  node?: string;
}

const COLUMNS: Column<QueueRow>[] = [
  { key: "name", label: "Name", render: (q) => html`<a href=${href("queues", q.vhost, q.name)}>${q.name}</a>` },
  { key: "vhost", label: "Virtual host" },
  { key: "type", label: "Type" },
  { key: "durable", label: "Features", sortable: false, needs: ["auto_delete", "exclusive", "arguments"], render: (q) => html`<${Features} x=${q} />` },
  { key: "policy", label: "Policy", render: (q) => q.policy ?? "" },
  { key: "state", label: "State", render: (q) => html`<span class=${`state state-${q.state}`}>${q.state}</span>` },
  { key: "consumers", label: "Consumers", num: true, render: (q) => fmtNum(q.consumers) },
  { key: "messages_ready", label: "Ready", num: true, render: (q) => fmtNum(q.messages_ready) },
  { key: "messages_unacknowledged", label: "Unacked", num: true, render: (q) => fmtNum(q.messages_unacknowledged) },
  { key: "messages", label: "Total", num: true, render: (q) => fmtNum(q.messages) },
  { key: "message_stats.publish_details.rate", label: "Incoming", num: true, render: (q) => fmtRate(rateOf(q.message_stats, "publish")) },
  { key: "message_stats.deliver_get_details.rate", label: "Deliver / get", num: true, render: (q) => fmtRate(rateOf(q.message_stats, "deliver_get")) },
  { key: "message_stats.ack_details.rate", label: "Ack", num: true, render: (q) => fmtRate(rateOf(q.message_stats, "ack")) },
];

export function QueuesPage() {
  const columns = withNodeColumn(COLUMNS, useManyNodes(), "vhost");
  const [reloadKey, setReloadKey] = useState(0);
  return html`<h1>Queues</h1>
    <${ListView} id="queues" noun="queues" trimColumns=${true} path=${(v: string) => (v ? apiPath`/queues/${v}` : "/queues")} columns=${columns} rowKey=${(q: QueueRow) => `${q.vhost}\u0000${q.name}`} reloadKey=${reloadKey} />
    <${AddSection} title="Add a new queue" action="Adding a queue" form=${(where: readonly string[]) => html`<${AddQueue} where=${where} added=${() => setReloadKey((k) => k + 1)} />`} />`;
}

function AddQueue({ where, added }: { where: readonly string[]; added: () => void }) {
  const { api, vhost: selected, access } = useApp();
  const [vhost, setVhost] = useState(selected);
  const [type, setType] = useState<"classic" | "quorum" | "stream">("classic");
  const [name, setName] = useState("");
  const [durable, setDurable] = useState("true");
  const [autoDelete, setAutoDelete] = useState("false");
  const [args, setArgs] = useState<ArgRow[]>([]);
  const act = useAction(added);
  const submit = (e: Event): Promise<boolean> => {
    e.preventDefault();
    return act.run(async () => {
      const a = argsObject(args);
      if (type !== "classic") a["x-queue-type"] = type;
      // Quorum queues and streams are always durable and never auto-delete (RabbitMQ's rules).
      const classic = type === "classic";
      await api.put(apiPath`/queues/${vhost}/${name}`, { durable: !classic || durable === "true", auto_delete: classic && autoDelete === "true", arguments: a });
      setName("");
      return `Queue ${name} added.`;
    });
  };
  const addArg = (key: string, t: ArgRow["type"]): void => {
    if (args.some((r) => r.key === key)) return;
    setArgs([...args.filter((r) => r.key || r.value), { key, value: t === "boolean" ? "true" : "", type: t }]);
  };
  return html`<form class="form" onSubmit=${submit} aria-label="Add queue">
    <${VhostField} value=${vhost} set=${setVhost} only=${where} />
    <${NamePattern} pattern=${access ? vhostAccess(access, vhost)?.configure : undefined} vhost=${vhost} />
    <${SelectField} label="Type" name="type" value=${type} set=${(v: string) => setType(v as "classic" | "quorum" | "stream")} options=${[["classic", "Classic"], ["quorum", "Quorum"], ["stream", "Stream"]]} />
    <${TextField} label="Name" name="name" value=${name} set=${setName} required=${true} />
    <div class="field-row">
      <${SelectField} label="Durability" name="durable" value=${type !== "classic" ? "true" : durable} set=${setDurable} options=${type !== "classic" ? [["true", "Durable"]] : [["true", "Durable"], ["false", "Transient"]]} />
      ${type === "classic" ? html`<${SelectField} label="Auto delete" name="auto_delete" value=${autoDelete} set=${setAutoDelete} options=${[["false", "No"], ["true", "Yes"]]} />` : null}
    </div>
    <${ArgsEditor} label="Arguments" rows=${args} set=${setArgs} />
    <div class="arg-help" role="group" aria-label="Known arguments">
      <p class="hint">Add an argument:</p>
      <ul>
        ${QUEUE_ARGUMENTS.filter((a) => a.types.includes(type)).map(
          (a) => html`<li><button type="button" class="link" onClick=${() => addArg(a.key, a.type)}>${a.key}</button> <span class="hint">${a.help}</span></li>`,
        )}
      </ul>
    </div>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Add queue</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
