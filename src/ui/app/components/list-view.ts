/**
 * The shared list: one page of a collection fetched from the API with RabbitMQ's list parameters
 * (page, page_size, name, use_regex, sort, sort_reverse, columns), so the server filters, sorts
 * and pages — 10,000 queues cost the browser one page of rows, and no row makes its own request.
 * Filter, sort and page size are kept per list for the tab's session.
 */
import type { ComponentChild } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useApp } from "../app-context.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { loadPref, savePref } from "../session.js";
import { ErrorBox } from "./error-box.js";
import { TableWrap } from "./table-wrap.js";
import { fmtNum } from "../format.js";

export interface Column<T> {
  /** Dotted field path: the sort key and the `columns` entry. */
  readonly key: string;
  readonly label: string;
  /** Extra fields this column's render reads (sent in `columns`). */
  readonly needs?: readonly string[];
  readonly sortable?: boolean;
  readonly num?: boolean;
  readonly title?: string;
  readonly render?: (item: T) => ComponentChild;
}

export interface Paged<T> {
  readonly items: T[];
  readonly page: number;
  readonly page_count: number;
  readonly page_size: number;
  readonly filtered_count: number;
  readonly item_count: number;
  readonly total_count: number;
}

interface ListPrefs {
  name: string;
  regex: boolean;
  sort: string;
  reverse: boolean;
  size: number;
}

export interface ListViewProps<T> {
  /** Names the list's saved preferences ("queues"). */
  readonly id: string;
  /** The API collection for the selected vhost ("" = all vhosts). */
  readonly path: (vhost: string) => string;
  readonly columns: readonly Column<T>[];
  readonly rowKey: (item: T) => string;
  readonly defaultSort?: string;
  readonly noun: string;
  /** Ask only for the listed columns' fields (smaller answers for big lists). */
  readonly trimColumns?: boolean;
  /** Changes when the page wants the list fetched again now (after an add or delete). */
  readonly reloadKey?: number;
}

const SIZES = [20, 50, 100, 500];

function field(item: unknown, path: string): unknown {
  let v: unknown = item;
  for (const p of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

export function ListView<T>(props: ListViewProps<T>) {
  const { api, vhost } = useApp();
  const [prefs, setPrefsState] = useState<ListPrefs>(() => loadPref(`list.${props.id}`, { name: "", regex: false, sort: props.defaultSort ?? "", reverse: false, size: 100 }));
  const [page, setPage] = useState(1);
  const [filterText, setFilterText] = useState(prefs.name);
  // From the latest state, not this render's: the filter's debounce fires after the closure that
  // scheduled it, and merging into its stale copy undid a Regex tick made meanwhile.
  const setPrefs = (p: Partial<ListPrefs>): void => {
    setPrefsState((current) => {
      const next = { ...current, ...p };
      savePref(`list.${props.id}`, next);
      return next;
    });
    setPage(1);
  };
  // Typing filters after a short pause, not on every key.
  useEffect(() => {
    if (filterText === prefs.name) return;
    const t = setTimeout(() => setPrefs({ name: filterText }), 250);
    return () => clearTimeout(t);
  }, [filterText]);

  const columns = props.trimColumns ? [...new Set(props.columns.flatMap((c) => [c.key, ...(c.needs ?? [])]))].join(",") : undefined;
  const live = useLive(
    () =>
      api.get<Paged<T>>(props.path(vhost), {
        page,
        page_size: prefs.size,
        name: prefs.name,
        use_regex: prefs.regex ? "true" : undefined,
        sort: prefs.sort,
        sort_reverse: prefs.sort ? String(prefs.reverse) : undefined,
        columns,
      }),
    // `columns` too: a column added once the page knows more (the Node column, shown when /api/nodes
    // lists more than one) is fetched at once, not at the next refresh (never, with refresh paused).
    [vhost, page, prefs.name, prefs.regex, prefs.sort, prefs.reverse, prefs.size, props.reloadKey, columns],
  );
  const data = live.data;
  // A page past the end (after deletes or a narrower filter) falls back to the last page.
  useEffect(() => {
    if (data && data.page_count > 0 && page > data.page_count) setPage(data.page_count);
  }, [data?.page_count]);

  const sortBy = (key: string): void => setPrefs(prefs.sort === key ? { reverse: !prefs.reverse } : { sort: key, reverse: false });
  const first = data && data.item_count > 0 ? (data.page - 1) * data.page_size + 1 : 0;
  const last = data ? first + data.item_count - Math.min(1, data.item_count) : 0;

  return html`<section class="list" aria-label=${props.noun}>
    <div class="list-tools">
      <label>Filter <input type="search" value=${filterText} onInput=${(e: Event) => setFilterText((e.target as HTMLInputElement).value)} placeholder="name" /></label>
      <label class="check"><input type="checkbox" checked=${prefs.regex} onChange=${(e: Event) => setPrefs({ regex: (e.target as HTMLInputElement).checked })} /> Regex</label>
      <label>Page size <select value=${prefs.size} onChange=${(e: Event) => setPrefs({ size: Number((e.target as HTMLSelectElement).value) })}>
        ${SIZES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label>
      <span class="list-count" aria-live="polite">${data ? html`${fmtNum(first)}–${fmtNum(last)} of ${fmtNum(data.filtered_count)} ${props.noun}${data.filtered_count !== data.total_count ? ` (filtered from ${fmtNum(data.total_count)})` : ""}` : ""}</span>
      <${Pager} page=${page} count=${data?.page_count ?? 0} go=${setPage} />
    </div>
    <${ErrorBox} error=${live.error} />
    ${live.loading ? html`<p class="muted">Loading…</p>` : null}
    ${data
      ? html`<${TableWrap}><table class="grid">
          <thead><tr>
            ${props.columns.map((c) => {
              const sorted = prefs.sort === c.key;
              const aria = sorted ? (prefs.reverse ? "descending" : "ascending") : undefined;
              return html`<th class=${c.num ? "num" : ""} aria-sort=${aria} title=${c.title}>
                ${c.sortable === false ? c.label : html`<button type="button" class="sort" onClick=${() => sortBy(c.key)}>${c.label}${sorted ? (prefs.reverse ? " ▼" : " ▲") : ""}</button>`}
              </th>`;
            })}
          </tr></thead>
          <tbody>
            ${data.items.length === 0 ? html`<tr><td colspan=${props.columns.length} class="muted">No ${props.noun}${prefs.name ? " match the filter" : ""}.</td></tr>` : null}
            ${data.items.map((item) => html`<tr key=${props.rowKey(item)}>
              ${props.columns.map((c) => html`<td class=${c.num ? "num" : ""}>${c.render ? c.render(item) : String(field(item, c.key) ?? "")}</td>`)}
            </tr>`)}
          </tbody>
        </table><//>`
      : null}
  </section>`;
}

function Pager({ page, count, go }: { page: number; count: number; go: (p: number) => void }) {
  if (count <= 1) return null;
  return html`<nav class="pager" aria-label="Pages">
    <button type="button" disabled=${page <= 1} onClick=${() => go(1)} aria-label="First page">«</button>
    <button type="button" disabled=${page <= 1} onClick=${() => go(page - 1)} aria-label="Previous page">‹</button>
    <label>Page <input type="number" min="1" max=${count} value=${page} onChange=${(e: Event) => {
      const n = Number((e.target as HTMLInputElement).value);
      if (Number.isInteger(n) && n >= 1 && n <= count) go(n);
    }} /> of ${fmtNum(count)}</label>
    <button type="button" disabled=${page >= count} onClick=${() => go(page + 1)} aria-label="Next page">›</button>
    <button type="button" disabled=${page >= count} onClick=${() => go(count)} aria-label="Last page">»</button>
  </nav>`;
}
