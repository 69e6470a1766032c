/**
 * RabbitMQ's list query parameters: `page` switches on paging (page_size 1..500, default 100;
 * `name` filter, case-insensitive substring or with `use_regex` a regex), `sort` (a dotted
 * path, default by vhost then name), `sort_reverse`, `columns` (dotted paths kept per item).
 */
import { RE2JS } from "re2js";
import { badRequest } from "./http-errors.js";

export type Item = Record<string, unknown>;

export interface PagedResponse {
  filtered_count: number;
  item_count: number;
  items: Item[];
  page: number;
  page_count: number;
  page_size: number;
  total_count: number;
}

type Query = Record<string, string | undefined>;

function get(obj: unknown, path: string): unknown {
  return getParts(obj, path.split("."));
}

/** `get` with the dotted path split once (sorting compares the same keys n·log n times). */
function getParts(obj: unknown, parts: readonly string[]): unknown {
  let v: unknown = obj;
  for (const part of parts) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Erlang term order, roughly: numbers before strings; missing values sort as 0. */
function compare(a: unknown, b: unknown): number {
  const x = a ?? 0;
  const y = b ?? 0;
  if (typeof x === "number" && typeof y === "number") return x - y;
  if (typeof x === "number") return -1;
  if (typeof y === "number") return 1;
  const sx = String(x);
  const sy = String(y);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

function positiveInt(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw badRequest(`Invalid pagination parameters: ${name} ${raw}`);
  return n;
}

function pick(item: Item, columns: string[]): Item {
  const out: Item = {};
  for (const col of columns) {
    const v = get(item, col);
    if (v === undefined) continue;
    const parts = col.split(".");
    let target = out;
    for (const p of parts.slice(0, -1)) target = (target[p] ??= {}) as Item;
    target[parts[parts.length - 1]!] = v;
  }
  return out;
}

/**
 * A list whose records are costly to build (queues with live figures): `key` gives the cheap
 * fields (vhost, name) that the default sort and the name filter read, so a page of 100 out of
 * 10,000 builds 100 records. A sort on any other field builds them all.
 */
export interface LazyList<T> {
  readonly sources: readonly T[];
  key(source: T): Item;
  build(source: T): Item;
}

/** Applies sort, columns and (when `page` is given) filtering and paging. */
export function listResponse<T>(list: Item[] | LazyList<T>, query: Query, defaultSort: string[] = ["vhost", "name"]): Item[] | PagedResponse {
  if (Array.isArray(list)) return listItems(list, query, defaultSort);
  const keys = query["sort"] ? [query["sort"], ...defaultSort] : defaultSort;
  const cheap = list.sources.map((t) => list.key(t));
  if (cheap.length > 0 && !keys.every((k) => k in cheap[0]!)) return listItems(list.sources.map((t) => list.build(t)), query, defaultSort);
  const sourceOf = new Map<Item, T>();
  cheap.forEach((k, i) => sourceOf.set(k, list.sources[i]!));
  const { columns, ...withoutColumns } = query;
  const build = (items: Item[]): Item[] => {
    const built = items.map((k) => list.build(sourceOf.get(k)!));
    return columns === undefined ? built : listItems(built, { columns }, []) as Item[];
  };
  const result = listItems(cheap, withoutColumns, defaultSort);
  return Array.isArray(result) ? build(result) : { ...result, items: build(result.items) };
}

function listItems(items: Item[], query: Query, defaultSort: string[]): Item[] | PagedResponse {
  const sortKey = query["sort"];
  const keys = sortKey ? [sortKey, ...defaultSort] : defaultSort;
  const paths = keys.map((k) => k.split("."));
  const sorted = [...items].sort((a, b) => {
    for (const p of paths) {
      const c = compare(getParts(a, p), getParts(b, p));
      if (c !== 0) return c;
    }
    return 0;
  });
  if (query["sort_reverse"] === "true") sorted.reverse();
  const columns = query["columns"] ? query["columns"].split(",").map((c) => c.trim()).filter(Boolean) : null;
  const page = positiveInt(query["page"], "page number");
  if (page === undefined) return columns ? sorted.map((i) => pick(i, columns)) : sorted;

  const pageSize = positiveInt(query["page_size"], "page size") ?? 100;
  if (pageSize > 500) throw badRequest(`Invalid pagination parameters: page size ${pageSize}, the maximum is 500`);
  let filtered = sorted;
  const name = query["name"];
  if (name) {
    if (query["use_regex"] === "true") {
      if (name.length > 1024) throw badRequest("name filter regex is too long");
      // A linear-time engine: a client-supplied filter must not be able to stall the broker.
      let re: RE2JS | null = null;
      try {
        re = RE2JS.compile(name, RE2JS.CASE_INSENSITIVE);
      } catch {
        re = null; // RabbitMQ: an invalid regex simply matches nothing
      }
      filtered = re ? sorted.filter((i) => re.matcher(String(i["name"] ?? "")).find()) : [];
    } else {
      const needle = name.toLowerCase();
      filtered = sorted.filter((i) => String(i["name"] ?? "").toLowerCase().includes(needle));
    }
  }
  const pageCount = Math.ceil(filtered.length / pageSize);
  if (page > 1 && page > pageCount) {
    throw badRequest(`Page out of range, page: ${page} page size: ${pageSize}, len: ${filtered.length}`);
  }
  const slice = filtered.slice((page - 1) * pageSize, page * pageSize);
  return {
    filtered_count: filtered.length,
    item_count: slice.length,
    items: columns ? slice.map((i) => pick(i, columns)) : slice,
    page,
    page_count: pageCount,
    page_size: pageSize,
    total_count: items.length,
  };
}
