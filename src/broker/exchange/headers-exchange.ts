/**
 * Headers exchange: bindings match on message headers, per the binding's `x-match`:
 * `all` (default) every binding argument must be present with an equal value, `any` at least
 * one; `all-with-x` / `any-with-x` also compare arguments that start with "x-", which the plain
 * forms skip (RabbitMQ 3.10 semantics). A binding argument of void type matches on presence.
 * This is the one type that has to look at every binding of the exchange per message.
 */
import type { FieldTable } from "../values/field-value.js";
import type { MessageProperties } from "../values/message-properties.js";
import { fieldValueEquals } from "../field-value-equals.js";
import { Exchange, type Destination, type ExchangeBinding } from "./exchange.js";

type MatchMode = "all" | "any" | "all-with-x" | "any-with-x";

interface HeaderRoute {
  readonly binding: ExchangeBinding;
  readonly mode: MatchMode;
  readonly entries: ReadonlyArray<readonly [string, FieldTable[string]]>;
}

export class HeadersExchange extends Exchange {
  readonly type = "headers";
  private routes: HeaderRoute[] = [];

  protected addRoute(b: ExchangeBinding): void {
    const mode = parseMode(b.args["x-match"]);
    const withX = mode === "all-with-x" || mode === "any-with-x";
    const entries = Object.entries(b.args).filter(([k]) => k !== "x-match" && (withX || !k.startsWith("x-")));
    this.routes.push({ binding: b, mode, entries });
  }

  protected removeRoute(b: ExchangeBinding): void {
    this.routes = this.routes.filter((r) => r.binding !== b);
  }

  route(_routingKey: string, properties: MessageProperties, out: Destination[]): void {
    const h = properties.headers ?? {};
    for (const r of this.routes) if (matches(r, h)) out.push(r.binding.destination);
  }
}

export function parseMode(value: unknown): MatchMode {
  return value === "any" || value === "all-with-x" || value === "any-with-x" ? value : "all";
}

/** The x-match values RabbitMQ accepts; anything else is refused at bind time. */
export function isValidMatchMode(value: unknown): boolean {
  return value === undefined || value === "all" || value === "any" || value === "all-with-x" || value === "any-with-x";
}

function matches(r: HeaderRoute, headers: FieldTable): boolean {
  const any = r.mode === "any" || r.mode === "any-with-x";
  if (r.entries.length === 0) return !any; // "all" of nothing matches everything; "any" of nothing, nothing
  for (const [key, expected] of r.entries) {
    const present = Object.hasOwn(headers, key);
    const ok = present && (expected === null || fieldValueEquals(headers[key]!, expected));
    if (any && ok) return true;
    if (!any && !ok) return false;
  }
  return !any;
}
