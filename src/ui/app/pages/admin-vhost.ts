/**
 * Admin › one virtual host: its settings and messages (description, tags and default queue type
 * editable), its limits (max-connections, max-queues: set and remove), who may use it
 * (permissions and topic permissions: set, clear), and deleting it with everything in it.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { detailsOf } from "../chart-series.js";
import { useAction } from "../components/action.js";
import { chartQuery, useChartRange } from "../components/chart-range.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { AdminFrame, DeleteButton, parseTagText, TagList, type PermissionRecord } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { SelectField, TextField } from "../components/fields.js";
import { LimitsEditor } from "../components/limits-editor.js";
import { KvTable, Section } from "../components/kv.js";
import { fmtNum, fmtRate } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href, navigate } from "../router.js";
import type { PageProps } from "../page-props.js";
import { QUEUE_TYPES, type LimitsRecord, type VhostRecord } from "./admin-vhosts.js";
import { QUEUED_SERIES, RATE_SERIES } from "./overview.js";
import type { TopicPermission } from "../access.js";
import { PermissionSections } from "../components/permission-sections.js";

export const VHOST_LIMITS: ReadonlyArray<readonly [string, string]> = [
  ["max-connections", "Max connections"],
  ["max-queues", "Max queues"],
];

export function AdminVhostPage({ params }: PageProps) {
  const name = params["vhost"] ?? "";
  return html`<${AdminFrame} seg="vhosts" title=${`Virtual host ${name}`}><${AdminVhostBody} params=${params} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function AdminVhostBody({ params }: PageProps) {
  const name = params["vhost"] ?? "";
  const { api } = useApp();
  const range = useChartRange();
  const vhost = useLive(() => api.get<VhostRecord & { message_stats?: unknown }>(apiPath`/vhosts/${name}`, chartQuery(range, ["lengths", "msg_rates"])), [name, range.key]);
  const limits = useLive(() => api.get<LimitsRecord[]>(apiPath`/vhost-limits/${name}`), [name], { live: false });
  const perms = useLive(() => api.get<PermissionRecord[]>(apiPath`/vhosts/${name}/permissions`), [name], { live: false });
  const users = useLive(() => api.get<Array<{ name: string }>>("/users", { columns: "name" }), [], { live: false });
  const topics = useLive(() => api.get<TopicPermission[]>(apiPath`/vhosts/${name}/topic-permissions`), [name], { live: false });
  const v = vhost.data;
  return html`    <p class="lead"><a href=${href("admin", "vhosts")}>All virtual hosts</a></p>
    <${ErrorBox} error=${vhost.error} />
    ${v
      ? html`<div class="admin-summary"><${KvTable} label="Virtual host" rows=${[
          ["Description", v.description || html`<span class="muted">none</span>`],
          ["Tags", html`<${TagList} tags=${v.tags} />`],
          ["Default queue type", v.default_queue_type],
          ["Messages", `${fmtNum(v.messages)} (${fmtNum(v.messages_ready)} ready, ${fmtNum(v.messages_unacknowledged)} unacked)`],
        ]} /></div>
        <${ChartGrid}>
          <${HistoryChart} title="Queued messages" series=${QUEUED_SERIES} details=${QUEUED_SERIES.map((q) => detailsOf(v, q.key))} kind="gauge" range=${range} format=${fmtNum} />
          <${HistoryChart} title="Message rates" series=${RATE_SERIES} details=${RATE_SERIES.map((r) => detailsOf(v.message_stats, r.key))} kind="rate" range=${range} format=${fmtRate} />
        <//>
        <${Section} title="Description and tags" open=${false}><${EditVhost} v=${v} onDone=${vhost.reload} /><//>
        <${Section} title="Limits">
          <${ErrorBox} error=${limits.error} />
          ${limits.data
            ? html`<${LimitsEditor} noun="Virtual host" records=${limits.data.map((l) => ({ owner: l.vhost, value: l.value }))} owners=${[name]} known=${VHOST_LIMITS}
                path=${(owner: string, limit: string) => apiPath`/vhost-limits/${owner}/${limit}`} canEdit=${true} onDone=${limits.reload} />`
            : null}
        <//>
        <${PermissionSections} of=${{ vhost: name }} choices=${(users.data ?? []).map((u) => u.name)} perms=${perms} topics=${topics} />
        <${Section} title="Delete this virtual host" open=${false}>
          <p class="warn-text">Deleting a virtual host deletes its queues with their messages, its exchanges, bindings, policies and permissions, and closes its connections.</p>
          <${DeleteButton} what=${`virtual host ${name} and everything in it`} run=${() => api.del(apiPath`/vhosts/${name}`)} onDone=${() => navigate(href("admin", "vhosts"))} label="Delete virtual host" />
        <//>`
      : null}`;
}

function EditVhost({ v, onDone }: { v: VhostRecord; onDone: () => void }) {
  const { api } = useApp();
  const [description, setDescription] = useState(v.description);
  const [tags, setTags] = useState(v.tags.join(", "));
  const [queueType, setQueueType] = useState(v.default_queue_type);
  const act = useAction(onDone);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      await api.put(apiPath`/vhosts/${v.name}`, { description, tags: parseTagText(tags).join(","), default_queue_type: queueType });
      return `Virtual host ${v.name} updated.`;
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Edit virtual host">
    <${TextField} label="Description" name="description" value=${description} set=${setDescription} />
    <${TextField} label="Tags" name="tags" value=${tags} set=${setTags} placeholder="comma-separated" />
    <${SelectField} label="Default queue type" name="default_queue_type" value=${queueType} set=${setQueueType} options=${QUEUE_TYPES} />
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Update virtual host</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
