/** Admin › Virtual hosts: every vhost with its messages, limits (one request for all) and adding one. */
import type { ComponentChild } from "preact";
import { useState } from "preact/hooks";
import { ApiError, apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame, parseTagText, TagList } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { SelectField, TextField } from "../components/fields.js";
import { Section } from "../components/kv.js";
import { ListView, type Column } from "../components/list-view.js";
import { fmtNum, fmtRate, rateOf } from "../format.js";
import { byteRate } from "./connections.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href } from "../router.js";

export interface VhostRecord {
  name: string;
  description: string;
  message_stats?: Record<string, unknown>;
  tags: string[];
  default_queue_type: string;
  tracing: boolean;
  messages?: number;
  messages_ready?: number;
  messages_unacknowledged?: number;
  /** Each node's state of the vhost (RabbitMQ's cluster_state). */
  cluster_state?: Record<string, string>;
}

/** "running", or each node's state where they differ (RabbitMQ's vhost State column). */
function vhostState(v: VhostRecord): ComponentChild {
  const states = Object.entries(v.cluster_state ?? {});
  if (states.length === 0) return "–";
  const all = new Set(states.map(([, st]) => st));
  if (all.size === 1) {
    const st = states[0]![1];
    return html`<span class=${`state state-${st}`}>${st}</span>`;
  }
  return states.map(([node, st]) => html`<span class=${`state state-${st}`}>${node}: ${st}</span> `);
}

export interface LimitsRecord {
  vhost: string;
  value: Record<string, number>;
}

export const QUEUE_TYPES: ReadonlyArray<readonly [string, string]> = [["classic", "classic"], ["quorum", "quorum"], ["stream", "stream"]];

export const limitsText = (value: Record<string, number> | undefined): string =>
  value && Object.keys(value).length ? Object.entries(value).map(([k, v]) => `${k}: ${v}`).join(", ") : "";

export function AdminVhostsPage() {
  return html`<${AdminFrame} seg="vhosts" title="Virtual hosts"><${AdminVhostsBody} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function AdminVhostsBody() {
  const { api } = useApp();
  const [reloadKey, setReloadKey] = useState(0);
  const limits = useLive(() => api.get<LimitsRecord[]>("/vhost-limits"), [reloadKey]);
  const limitsOf = new Map((limits.data ?? []).map((l) => [l.vhost, l.value]));
  const columns: Column<VhostRecord>[] = [
    { key: "name", label: "Name", render: (v) => html`<a href=${href("admin", "vhosts", v.name)}>${v.name}</a>` },
    { key: "description", label: "Description" },
    { key: "tags", label: "Tags", sortable: false, render: (v) => (v.tags.length ? html`<${TagList} tags=${v.tags} />` : "") },
    { key: "default_queue_type", label: "Default queue type" },
    { key: "limits", label: "Limits", sortable: false, render: (v) => limitsText(limitsOf.get(v.name)) || html`<span class="muted">none</span>` },
    { key: "messages_ready", label: "Ready", num: true, render: (v) => fmtNum(v.messages_ready) },
    { key: "messages_unacknowledged", label: "Unacked", num: true, render: (v) => fmtNum(v.messages_unacknowledged) },
    { key: "messages", label: "Total", num: true, render: (v) => fmtNum(v.messages) },
    // RabbitMQ's vhost list: state, network and message rates.
    { key: "cluster_state", label: "State", sortable: false, render: vhostState },
    { key: "recv_oct_details.rate", label: "From client", num: true, needs: ["recv_oct_details"], render: (v) => byteRate(rateOf(v, "recv_oct")) },
    { key: "send_oct_details.rate", label: "To client", num: true, needs: ["send_oct_details"], render: (v) => byteRate(rateOf(v, "send_oct")) },
    { key: "message_stats.publish_details.rate", label: "Publish", num: true, needs: ["message_stats"], render: (v) => fmtRate(rateOf(v.message_stats, "publish")) },
    { key: "message_stats.deliver_get_details.rate", label: "Deliver / get", num: true, needs: ["message_stats"], render: (v) => fmtRate(rateOf(v.message_stats, "deliver_get")) },
  ];
  return html`    <${ErrorBox} error=${limits.error} />
    <${ListView} id="admin-vhosts" noun="virtual hosts" path=${() => "/vhosts"} columns=${columns} rowKey=${(v: VhostRecord) => v.name} defaultSort="name" reloadKey=${reloadKey} />
    <${Section} title="Add a virtual host" open=${false}><${AddVhost} added=${() => setReloadKey((k) => k + 1)} /><//>`;
}

function AddVhost({ added }: { added: () => void }) {
  const { api, user } = useApp();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [tags, setTags] = useState("");
  const [queueType, setQueueType] = useState("classic");
  const act = useAction(added);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      // A PUT on an existing vhost updates it (RabbitMQ's API): "Add" must not quietly overwrite
      // another vhost's description and tags, so it asks first.
      const exists = await api.get(apiPath`/vhosts/${name}`, { columns: "name" }).then(
        () => true,
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return false;
          throw err;
        },
      );
      if (exists) throw new Error(`Virtual host ${name} exists already. Change its description and tags on its own page.`);
      await api.put(apiPath`/vhosts/${name}`, { description, tags: parseTagText(tags).join(","), default_queue_type: queueType });
      const done = name;
      setName("");
      setDescription("");
      setTags("");
      return `Virtual host ${done} added; ${user} has full permissions in it.`;
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Add virtual host">
    <${TextField} label="Name" name="name" value=${name} set=${setName} required=${true} />
    <${TextField} label="Description" name="description" value=${description} set=${setDescription} />
    <${TextField} label="Tags" name="tags" value=${tags} set=${setTags} placeholder="comma-separated" />
    <${SelectField} label="Default queue type" name="default_queue_type" value=${queueType} set=${setQueueType} options=${QUEUE_TYPES} />
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Add virtual host</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
