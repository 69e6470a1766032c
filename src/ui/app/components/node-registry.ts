/**
 * The node page's lists of what the node offers (RabbitMQ's node page, "Advanced"): enabled
 * plugins, feature flags, applications, exchange types and authentication mechanisms, each from the
 * node record (GET /api/nodes/{name}) or GET /api/feature-flags; and what RabbitMQ's node page
 * charts that has no counterpart in a Node.js process, said plainly rather than drawn empty.
 */
import type { ComponentChild } from "preact";
import { html } from "../html.js";

export interface RegistryEntry {
  name: string;
  description: string;
  version?: string;
  enabled?: boolean;
}

export interface FlagEntry {
  name: string;
  desc: string;
  state: string;
}

/** A list of named things as a table (name, then the given columns); an empty list says "none". */
function NamedTable<T extends { name: string }>({ label, rows, cols }: { label: string; rows: readonly T[]; cols: ReadonlyArray<[string, (r: T) => ComponentChild]> }) {
  if (rows.length === 0) return html`<p class="muted">None.</p>`;
  return html`<div class="table-wrap"><table class="grid" aria-label=${label}><thead><tr><th>Name</th>${cols.map(([h]) => html`<th>${h}</th>`)}</tr></thead><tbody>
    ${rows.map((r) => html`<tr key=${r.name}><td><code>${r.name}</code></td>${cols.map(([, cell]) => html`<td>${cell(r)}</td>`)}</tr>`)}
  </tbody></table></div>`;
}

export function PluginList({ plugins }: { plugins: readonly string[] }) {
  return html`<p class="hint">Coney has no plugins to enable: each of these RabbitMQ plugins' functions is built in and listed while this node serves it (a protocol's while its listener is configured).</p>
    ${plugins.length === 0 ? html`<p class="muted">None.</p>` : html`<ul class="plugin-list" aria-label="Enabled plugins">${plugins.map((p) => html`<li key=${p}><code>${p}</code></li>`)}</ul>`}`;
}

export function FeatureFlagList({ flags }: { flags: readonly FlagEntry[] }) {
  return html`<${NamedTable} label="Feature flags" rows=${flags} cols=${[
    ["State", (f: FlagEntry) => f.state],
    ["Description", (f: FlagEntry) => f.desc],
  ]} />`;
}

export function ApplicationList({ apps }: { apps: readonly RegistryEntry[] }) {
  return html`<${NamedTable} label="Applications" rows=${apps} cols=${[["Version", (a: RegistryEntry) => a.version ?? ""], ["Description", (a: RegistryEntry) => a.description]]} />`;
}

export function RegistryList({ label, entries, showEnabled }: { label: string; entries: readonly RegistryEntry[]; showEnabled: boolean }) {
  const cols: Array<[string, (e: RegistryEntry) => ComponentChild]> = [["Description", (e) => e.description]];
  if (showEnabled) cols.push(["Enabled", (e) => (e.enabled ? "yes" : "no")]);
  return html`<${NamedTable} label=${label} rows=${entries} cols=${cols} />`;
}

/** What RabbitMQ's node page shows of its Erlang VM that a Node.js process has no figure for. */
export function NotInConey() {
  return html`<ul class="not-in-coney">
    <li><strong>Persistence statistics</strong> (Mnesia transactions, message store and queue index operations): Coney has no Mnesia, and its message store has no such counters.</li>
    <li><strong>I/O statistics</strong> (file reads, writes, seeks and syncs, with their times): not counted by Coney's store.</li>
    <li><strong>GC operations, bytes reclaimed, context switches</strong>: Erlang VM counters; V8's collector reports none of them per node.</li>
    <li><strong>Binary references</strong>: V8 cannot say which object holds which Buffer (the API answers <code>not_available</code>).</li>
    <li><strong>Management GC queue length, quorum queue open file metrics</strong>: internals of RabbitMQ's Erlang processes.</li>
    <li><strong>Erlang processes</strong> are shown as this process's event-loop resources, and <strong>net ticktime</strong> as the AMQP heartbeat it proposes (see the rows above).</li>
  </ul>`;
}
