/**
 * A stream queue's own part of the queue page (docs/STREAMS.md): its nodes (leader, members,
 * online), its log — segments, first, last and committed offset, size — and every reader of it, AMQP 0-9-1 consumers and native stream
 * subscriptions alike, with the offset each is sent next and its lag behind the committed end.
 * The figures are the one-queue record's (src/http/stream-queue-record.ts).
 */
import { KvTable, Section } from "../components/kv.js";
import { fmtBytes, fmtNum } from "../format.js";
import { html } from "../html.js";

/** The stream fields of /api/queues/{vhost}/{name}. */
export interface StreamFields {
  segments?: number;
  first_offset?: number;
  last_offset?: number;
  committed_offset?: number;
  message_bytes: number;
  leader?: string;
  members?: string[];
  online?: string[];
  stream_consumers?: StreamReaderRow[];
}

interface StreamReaderRow {
  protocol: "amqp091" | "stream";
  offset: number;
  offset_lag: number;
  user: string | null;
  consumer_tag?: string;
  channel?: string | null;
  subscription_id?: number;
  connection_name?: string;
  consumed?: number;
}

/** An offset, or "–" while the stream holds none (osiris's -1, or a last offset below the first). */
function fmtOffset(n: number | undefined, first = 0): string {
  return n === undefined || n < 0 || n < first ? "–" : fmtNum(n);
}

export function StreamPart({ q }: { q: StreamFields }) {
  const readers = q.stream_consumers ?? [];
  const first = q.first_offset ?? 0;
  return html`<${Section} title="Stream">
    <${KvTable} label="Stream" rows=${[
      ["Leader", q.leader ?? "–"],
      ["Members", (q.members ?? []).join(", ") || "–"],
      ["Online", (q.online ?? []).join(", ") || "–"],
      ["Segments", fmtNum(q.segments ?? 0)],
      ["First offset", fmtOffset(q.first_offset)],
      ["Last offset", fmtOffset(q.last_offset, first)],
      ["Committed offset", fmtOffset(q.committed_offset, first)],
      ["Size", fmtBytes(q.message_bytes)],
    ]} />
    <h3>Readers and their offsets (${readers.length})</h3>
    ${readers.length === 0
      ? html`<p class="muted">No consumer reads this stream.</p>`
      : html`<table class="grid" aria-label="Stream readers">
          <thead><tr><th>Protocol</th><th>Consumer</th><th>Via</th><th>User</th><th class="num">Offset</th><th class="num">Lag</th></tr></thead>
          <tbody>
            ${readers.map(
              (r) => html`<tr>
                <td>${r.protocol === "stream" ? "Stream" : "AMQP 0-9-1"}</td>
                <td>${r.protocol === "stream" ? `subscription ${r.subscription_id ?? "?"}` : (r.consumer_tag ?? "")}</td>
                <td>${r.protocol === "stream" ? (r.connection_name ?? "") : (r.channel ?? "")}</td>
                <td>${r.user ?? ""}</td>
                <td class="num">${fmtNum(r.offset)}</td>
                <td class="num">${fmtNum(r.offset_lag)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}
  <//>`;
}
