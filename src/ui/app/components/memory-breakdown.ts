/**
 * A node's memory breakdown (GET /api/nodes/{name}?memory=true → `memory`), as RabbitMQ's node
 * page shows it: one bar split by category group, and each group's categories with their sizes,
 * against the total the node measures its memory alarm by (`total[strategy]`). Categories of
 * Erlang components Coney does not have are reported as 0 by the broker and listed as such.
 */
import { fmtBytes } from "../format.js";
import { html } from "../html.js";

/** Groups of RabbitMQ's categories (the field names of the `memory` object). */
export const MEMORY_GROUPS: ReadonlyArray<{ label: string; color: string; keys: readonly string[] }> = [
  { label: "Connections", color: "#d99a00", keys: ["connection_readers", "connection_writers", "connection_channels", "connection_other"] },
  {
    label: "Queues",
    color: "#3a7bd5",
    keys: ["queue_procs", "queue_slave_procs", "quorum_queue_procs", "quorum_queue_dlx_procs", "stream_queue_procs", "stream_queue_replica_reader_procs", "stream_queue_coordinator_procs"],
  },
  { label: "Binaries", color: "#2e9d5b", keys: ["binary"] },
  { label: "Tables", color: "#8a5cc2", keys: ["mnesia", "msg_index", "mgmt_db", "quorum_ets", "other_ets"] },
  { label: "Processes", color: "#c94f4f", keys: ["plugins", "other_proc"] },
  { label: "System", color: "#1aa3a3", keys: ["code", "atom", "metrics", "other_system"] },
  { label: "Allocated, unused", color: "#9aa5ad", keys: ["allocated_unused", "reserved_unallocated"] },
];

export type MemoryRecord = Record<string, unknown> & { strategy?: string; total?: Record<string, number> };

const size = (m: MemoryRecord, k: string): number => {
  const v = m[k];
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
};

export function MemoryBreakdown({ memory }: { memory: MemoryRecord }) {
  const groups = MEMORY_GROUPS.map((g) => ({ ...g, bytes: g.keys.reduce((n, k) => n + size(memory, k), 0) }));
  const sum = groups.reduce((n, g) => n + g.bytes, 0);
  const strategy = memory.strategy ?? "rss";
  const total = memory.total?.[strategy] ?? sum;
  // The bar is split over the categories' sum; the total the alarm uses is stated beside it.
  const scale = Math.max(sum, 1);
  return html`<div class="memory" aria-label="Memory breakdown">
    <p>Total <strong data-total=${total}>${fmtBytes(total)}</strong> <span class="muted">(${strategy === "rss" ? "resident set size, what the memory alarm measures" : strategy})</span>;
      the categories add up to ${fmtBytes(sum)}.</p>
    <div class="memory-bar" role="img" aria-label=${groups.map((g) => `${g.label} ${fmtBytes(g.bytes)}`).join(", ")}>
      ${groups.filter((g) => g.bytes > 0).map((g) => html`<span title=${`${g.label}: ${fmtBytes(g.bytes)}`} style=${{ width: `${(g.bytes / scale) * 100}%`, background: g.color }}></span>`)}
    </div>
    <div class="memory-groups">
      ${groups.map(
        (g) => html`<table class="memory-group" aria-label=${`Memory: ${g.label}`}>
          <thead><tr><th scope="col"><span class="swatch" style=${{ background: g.color }}></span>${g.label}</th><th scope="col" class="num">${fmtBytes(g.bytes)}</th></tr></thead>
          <tbody>${g.keys.map((k) => html`<tr class=${size(memory, k) === 0 ? "muted" : ""}><th scope="row">${k.replace(/_/g, " ")}</th><td class="num">${fmtBytes(size(memory, k))}</td></tr>`)}</tbody>
        </table>`,
      )}
    </div>
  </div>`;
}
