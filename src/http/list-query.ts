/**
 * RabbitMQ's list query parameters: `page` switches on paging (page_size 1..500, default 100;
 * `name` filter, case-insensitive substring or with `use_regex` a regex), `sort` (a dotted
 * path, default by vhost then name), `sort_reverse`, `columns` (dotted paths kept per item).
 */
import { RE2JS } from "re2js";
import { BrokerError } from "../errors/broker-error.js";
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

/**
 * RabbitMQ's paging parameters: not a number at all is a bad_request; a number out of bounds
 * (page < 1, page_size < 1 or > 500) is invalid_pagination_parameters naming both values.
 */
function pagingParameters(query: Query): { page: number; pageSize: number } | null {
  const rawPage = query["page"];
  if (rawPage === undefined) return null;
  const rawSize = query["page_size"];
  const page = Number(rawPage);
  const pageSize = rawSize === undefined ? 100 : Number(rawSize);
  if (!Number.isInteger(page) || !Number.isInteger(pageSize)) throw badRequest("Pagination parameters are invalid");
  if (page < 1 || pageSize < 1 || pageSize > 500) {
    throw new BrokerError("invalidPagination", `Invalid pagination parameters: page number ${rawPage}, page size ${rawSize ?? "undefined"}`);
  }
  return { page, pageSize };
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
 * 10,000 builds 100 records. `presorted` says `sources` already come in the default order (the
 * broker keeps its queues sorted by name), so an unsorted request does not sort at all. A sort
 * on any other field builds every record.
 */
export interface LazyList<T> {
  readonly sources: readonly T[];
  readonly presorted?: boolean;
  key(source: T): Item;
  build(source: T): Item;
}

interface Page<T> {
  readonly slice: readonly T[];
  readonly filtered: number;
  readonly page: number;
  readonly pageCount: number;
  readonly pageSize: number;
}

/** Applies sort, columns and (when `page` is given) filtering and paging. */
export function listResponse<T>(list: Item[] | LazyList<T>, query: Query, defaultSort: string[] = ["vhost", "name"]): Item[] | PagedResponse {
  if (Array.isArray(list)) return listItems(list, query, defaultSort);
  const keys = query["sort"] ? [query["sort"], ...defaultSort] : defaultSort;
  let ordered: readonly T[];
  if (list.presorted && !query["sort"]) {
    ordered = list.sources;
  } else {
    const cheap = list.sources.map((t) => list.key(t));
    if (cheap.length > 0 && !keys.every((k) => k in cheap[0]!)) return listItems(list.sources.map((t) => list.build(t)), query, defaultSort);
    ordered = sortedBy(list.sources, cheap, keys);
  }
  if (query["sort_reverse"] === "true") ordered = [...ordered].reverse();
  const columns = columnsOf(query);
  const build = (sources: readonly T[]): Item[] => sources.map((t) => (columns ? pick(list.build(t), columns) : list.build(t)));
  const paging = pageOf(ordered, query, (t) => list.key(t)["name"]);
  return paging === null ? build(ordered) : pagedResponse(paging, build(paging.slice), list.sources.length);
}

/** `sources` in the order of their cheap keys (computed once each, not per comparison). */
function sortedBy<T>(sources: readonly T[], keys: readonly Item[], sortKeys: readonly string[]): T[] {
  const paths = sortKeys.map((k) => k.split("."));
  const order = sources.map((_, i) => i);
  order.sort((a, b) => compareItems(keys[a]!, keys[b]!, paths));
  return order.map((i) => sources[i]!);
}

function compareItems(a: Item, b: Item, paths: readonly (readonly string[])[]): number {
  for (const p of paths) {
    const c = compare(getParts(a, p), getParts(b, p));
    if (c !== 0) return c;
  }
  return 0;
}

function columnsOf(query: Query): string[] | null {
  return query["columns"] ? query["columns"].split(",").map((c) => c.trim()).filter(Boolean) : null;
}

function listItems(items: Item[], query: Query, defaultSort: string[]): Item[] | PagedResponse {
  const sortKey = query["sort"];
  const paths = (sortKey ? [sortKey, ...defaultSort] : defaultSort).map((k) => k.split("."));
  const sorted = [...items].sort((a, b) => compareItems(a, b, paths));
  if (query["sort_reverse"] === "true") sorted.reverse();
  const columns = columnsOf(query);
  const shape = (list: readonly Item[]): Item[] => (columns ? list.map((i) => pick(i, columns)) : [...list]);
  const paging = pageOf(sorted, query, (i) => i["name"]);
  return paging === null ? shape(sorted) : pagedResponse(paging, shape(paging.slice), items.length);
}

/**
 * RabbitMQ's paging: null without `page`; otherwise the name filter (only in paging mode) and
 * the requested page, with its errors (400 for a bad page or size, or a page out of range).
 */
function pageOf<T>(ordered: readonly T[], query: Query, nameOf: (t: T) => unknown): Page<T> | null {
  const params = pagingParameters(query);
  if (params === null) return null;
  const { page, pageSize } = params;
  let filtered = ordered;
  const name = query["name"];
  if (name) {
    if (query["use_regex"] === "true") {
      if (name.length > 1024) throw badRequest("name filter regex is too long");
      // A linear-time engine: a client-supplied filter must not be able to stall the broker.
      let re: RE2JS;
      try {
        re = RE2JS.compile(name, RE2JS.CASE_INSENSITIVE);
      } catch (err) {
        // RabbitMQ's re:run fails on it and its paging wrapper answers 400 "Pagination parameters
        // are invalid"; the same status and words, saying which parameter and why.
        throw badRequest(`Pagination parameters are invalid: 'name' is not a valid regular expression (${err instanceof Error ? err.message : String(err)})`);
      }
      filtered = ordered.filter((t) => re.matcher(String(nameOf(t) ?? "")).find());
    } else {
      const needle = name.toLowerCase();
      filtered = ordered.filter((t) => String(nameOf(t) ?? "").toLowerCase().includes(needle));
    }
  }
  const pageCount = Math.ceil(filtered.length / pageSize);
  if (page > 1 && page > pageCount) {
    throw new BrokerError("pageOutOfRange", `Page out of range, page: ${page} page size: ${pageSize}, len: ${filtered.length}`);
  }
  return { slice: filtered.slice((page - 1) * pageSize, page * pageSize), filtered: filtered.length, page, pageCount, pageSize };
}

function pagedResponse<T>(p: Page<T>, items: Item[], total: number): PagedResponse {
  return {
    filtered_count: p.filtered,
    item_count: items.length,
    items,
    page: p.page,
    page_count: p.pageCount,
    page_size: p.pageSize,
    total_count: total,
  };
}
