/** Exchanges: the paged list with message rates, and adding an exchange. */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { vhostAccess } from "../access.js";
import { useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { argsObject, ArgsEditor, SelectField, TextField, type ArgRow } from "../components/fields.js";
import { AddSection } from "../components/add-section.js";
import { ListView, type Column } from "../components/list-view.js";
import { NamePattern, VhostField } from "../components/vhost-select.js";
import { fmtRate, rateOf } from "../format.js";
import { html } from "../html.js";
import { href } from "../router.js";

export interface ExchangeRow {
  name: string;
  vhost: string;
  type: string;
  durable: boolean;
  auto_delete: boolean;
  internal: boolean;
  arguments: Record<string, unknown>;
  policy: string | null;
  message_stats?: Record<string, unknown>;
  /** x-delayed-message exchanges: messages held until due. */
  messages_delayed?: number;
}

/** The exchange types Coney creates, including the plugin ones (x-consistent-hash, x-delayed-message). */
const EXCHANGE_TYPES = ["direct", "fanout", "headers", "topic", "x-consistent-hash", "x-delayed-message"].map((t) => [t, t] as const);
/** What an x-delayed-message exchange may route by (its x-delayed-type argument). */
const DELAYED_TYPES = ["direct", "fanout", "headers", "topic", "x-consistent-hash"].map((t) => [t, t] as const);

/** RabbitMQ's feature letters: D durable, AD auto-delete, I internal, Args. */
export function Features({ x }: { x: { durable: boolean; auto_delete: boolean; internal?: boolean; exclusive?: boolean; arguments?: Record<string, unknown> } }) {
  const f: Array<[string, string]> = [];
  if (x.durable) f.push(["D", "durable"]);
  if (x.auto_delete) f.push(["AD", "auto-delete"]);
  if (x.internal) f.push(["I", "internal"]);
  if (x.exclusive) f.push(["Excl", "exclusive"]);
  const args = Object.entries(x.arguments ?? {});
  if (args.length) f.push(["Args", args.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n")]);
  return html`${f.map(([t, title]) => html`<abbr class="feature" title=${title}>${t}</abbr>`)}`;
}

export const exchangeLabel = (name: string): string => name || "(AMQP default)";

const COLUMNS: Column<ExchangeRow>[] = [
  { key: "name", label: "Name", render: (x) => html`<a href=${href("exchanges", x.vhost, x.name || "amq.default")}>${exchangeLabel(x.name)}</a>` },
  { key: "vhost", label: "Virtual host" },
  { key: "type", label: "Type" },
  { key: "durable", label: "Features", sortable: false, needs: ["auto_delete", "internal", "arguments"], render: (x) => html`<${Features} x=${x} />` },
  { key: "policy", label: "Policy", render: (x) => x.policy ?? "" },
  { key: "message_stats.publish_in_details.rate", label: "Rate in", num: true, render: (x) => fmtRate(rateOf(x.message_stats, "publish_in")) },
  { key: "message_stats.publish_out_details.rate", label: "Rate out", num: true, render: (x) => fmtRate(rateOf(x.message_stats, "publish_out")) },
];

export function ExchangesPage() {
  const [reloadKey, setReloadKey] = useState(0);
  return html`<h1>Exchanges</h1>
    <${ListView} id="exchanges" noun="exchanges" path=${(v: string) => (v ? apiPath`/exchanges/${v}` : "/exchanges")} columns=${COLUMNS} rowKey=${(x: ExchangeRow) => `${x.vhost}\u0000${x.name}`} reloadKey=${reloadKey} />
    <${AddSection} title="Add a new exchange" action="Adding an exchange" form=${(where: readonly string[]) => html`<${AddExchange} where=${where} added=${() => setReloadKey((k) => k + 1)} />`} />`;
}

function AddExchange({ where, added }: { where: readonly string[]; added: () => void }) {
  const { api, vhost: selected, access } = useApp();
  const [vhost, setVhost] = useState(selected);
  const [name, setName] = useState("");
  const [type, setType] = useState("direct");
  const [durable, setDurable] = useState("true");
  const [autoDelete, setAutoDelete] = useState("false");
  const [internal, setInternal] = useState("false");
  const [args, setArgs] = useState<ArgRow[]>([]);
  const [delayedType, setDelayedType] = useState("direct");
  const act = useAction(added);
  const submit = (e: Event): Promise<boolean> => {
    e.preventDefault();
    return act.run(async () => {
      const argumentsOf = type === "x-delayed-message" ? { ...argsObject(args), "x-delayed-type": delayedType } : argsObject(args);
      await api.put(apiPath`/exchanges/${vhost}/${name}`, { type, durable: durable === "true", auto_delete: autoDelete === "true", internal: internal === "true", arguments: argumentsOf });
      setName("");
      return `Exchange ${name} added.`;
    });
  };
  const yesNo = [["true", "Yes"], ["false", "No"]] as const;
  return html`<form class="form" onSubmit=${submit} aria-label="Add exchange">
    <${VhostField} value=${vhost} set=${setVhost} only=${where} />
    <${NamePattern} pattern=${access ? vhostAccess(access, vhost)?.configure : undefined} vhost=${vhost} />
    <${TextField} label="Name" name="name" value=${name} set=${setName} required=${true} />
    <${SelectField} label="Type" name="type" value=${type} set=${setType} options=${EXCHANGE_TYPES} />
    ${type === "x-delayed-message"
      ? html`<${SelectField} label="Delayed type (x-delayed-type)" name="x-delayed-type" value=${delayedType} set=${setDelayedType} options=${DELAYED_TYPES} />
          <p class="hint">Messages published with an x-delay header (milliseconds) are held, then routed as this type routes.</p>`
      : null}
    ${type === "x-consistent-hash"
      ? html`<p class="hint">Each binding's routing key is its weight (a whole number). The routing key is hashed, or the header named by the hash-header argument, or the message_id, correlation_id or timestamp named by hash-property.</p>`
      : null}
    <div class="field-row">
      <${SelectField} label="Durable" name="durable" value=${durable} set=${setDurable} options=${yesNo} />
      <${SelectField} label="Auto delete" name="auto_delete" value=${autoDelete} set=${setAutoDelete} options=${yesNo} />
      <${SelectField} label="Internal" name="internal" value=${internal} set=${setInternal} options=${yesNo} />
    </div>
    <${ArgsEditor} label="Arguments" rows=${args} set=${setArgs} />
    <p class="hint">alternate-exchange: where messages go that this exchange cannot route.</p>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Add exchange</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
