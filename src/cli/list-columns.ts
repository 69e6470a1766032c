/**
 * Columns ("info keys") of the list_* commands: which a command knows, which it shows by
 * default, and rabbitmqctl's validation ("Info key(s) x are not supported", a usage error).
 * Columns may be given as separate arguments or comma-separated, as rabbitmqctl accepts.
 */
import { badInfoKeys, type ValidationFailure } from "./command-spec.js";

export type Item = Record<string, unknown>;
export type ColumnTable = Readonly<Record<string, (item: Item) => unknown>>;

export function requestedColumns(args: readonly string[], defaults: readonly string[]): string[] {
  const cols = args.flatMap((a) => a.split(",")).map((c) => c.trim()).filter((c) => c.length > 0);
  return cols.length > 0 ? cols : [...defaults];
}

/** The unknown column names in a request, in the order given (empty when all are known). */
export function unknownColumns(args: readonly string[], table: ColumnTable): string[] {
  return requestedColumns(args, []).filter((c) => !Object.hasOwn(table, c));
}

export function rowsOf(items: readonly Item[], columns: readonly string[], table: ColumnTable): unknown[][] {
  return items.map((item) => columns.map((c) => table[c]!(item)));
}

/** A column read straight from the API record's field of the same name. */
export const field = (name: string) => (item: Item): unknown => item[name];

/** A column read from a field of one of the record's objects (`nested("connection_details", "name")`). */
export const nested = (outer: string, inner: string) => (item: Item): unknown => (item[outer] as Item | undefined)?.[inner];

/** Columns that are the record's own fields, named alike. */
export function fields(...names: string[]): Record<string, (item: Item) => unknown> {
  return Object.fromEntries(names.map((n) => [n, field(n)]));
}

/** rabbitmqctl's column validation for a list command: unknown keys are a usage error. */
export function validateColumns(table: ColumnTable): (args: string[]) => ValidationFailure | null {
  return (args) => {
    const bad = unknownColumns(args, table);
    return bad.length > 0 ? badInfoKeys(bad) : null;
  };
}
