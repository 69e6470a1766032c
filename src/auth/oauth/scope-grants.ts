/**
 * RabbitMQ's OAuth 2.0 scope grammar (rabbitmq_auth_backend_oauth2, rabbit_oauth2_scope):
 *   <resource_server_id>.configure:<vhost pattern>/<name pattern>
 *   <resource_server_id>.write:<vhost pattern>/<name pattern>
 *   <resource_server_id>.read:<vhost pattern>/<name pattern>
 *   <resource_server_id>.tag:<tag>
 * Patterns are wildcards where `*` matches any run of characters (RabbitMQ's wildcard matcher,
 * anchored at both ends); parts are percent-decoded, so a vhost `/` is written `%2F`. Scopes with
 * another prefix belong to other resource servers and are ignored. A name pattern omitted
 * (`read:vhost`) means every name, as RabbitMQ does. A third part (`write:vhost/exchange/rk*`) is
 * a routing-key pattern for topic authorisation on topic exchanges; without it, any key.
 *
 * Variables (RabbitMQ's scope variable expansion): `{vhost}` stands for the vhost being accessed,
 * so `rabbitmq.write:{vhost}/app-*` grants in every vhost; `{username}` for the token's user name
 * as Coney reads it (sub, client_id or user_name); any other `{claim}` for that claim of the token
 * (a dotted name reaches into nested claims). Claims are expanded once, when the token is read; a
 * scope naming a claim the token lacks grants nothing. `{vhost}` is expanded at each check, and
 * only scopes that use it pay for that.
 */
import type { ExternalGrants } from "../permission-check.js";
import type { PermissionKind } from "../permission.js";

interface ScopeGrant {
  /** The scope as the token wrote it, for explanations. */
  readonly scope: string;
  readonly kind: PermissionKind;
  readonly vhost: string;
  readonly name: string;
  readonly routingKey: string;
  /** True when a pattern holds `{vhost}`, expanded per check. */
  readonly perVhost: boolean;
}

/** What a token's scopes may refer to: its user name and claims. */
export interface ScopeVariables {
  readonly username: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

const VHOST_VAR = "{vhost}";

/** Expands `{username}` and `{claim}` variables (not `{vhost}`); null when a claim is missing or not a string or number. */
export function expandClaims(pattern: string, vars: ScopeVariables): string | null {
  if (!pattern.includes("{")) return pattern;
  let missing = false;
  const out = pattern.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    if (name === "vhost") return whole;
    if (name === "username") return vars.username;
    let v: unknown = vars.claims;
    for (const key of name.split(".")) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
    if (typeof v === "string" || typeof v === "number") return String(v);
    missing = true;
    return whole;
  });
  return missing ? null : out;
}

/** `{vhost}` in a pattern replaced by the vhost being checked. */
function forVhost(pattern: string, vhost: string): string {
  return pattern.includes(VHOST_VAR) ? pattern.split(VHOST_VAR).join(vhost) : pattern;
}

/** Anchored `*` wildcard match, linear in practice: each literal segment is found once, left to right. */
export function wildcardMatches(pattern: string, value: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === value;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const seg = parts[i]!;
    const found = value.indexOf(seg, at);
    if (found < 0 || found + seg.length > end) return false;
    at = found + seg.length;
  }
  return true;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The permissions and tags a token's scopes grant; implements the checker's ExternalGrants. */
export class ScopeGrants implements ExternalGrants {
  readonly tags: string[] = [];
  private readonly grants: ScopeGrant[] = [];
  /** True when a scope names a routing-key pattern: only then can topic authorisation refuse. */
  hasTopicRules = false;

  constructor(resourceServerId: string, scopes: readonly string[], vars: ScopeVariables = { username: "", claims: {} }) {
    const prefix = `${resourceServerId}.`;
    for (const scope of scopes) {
      if (!scope.startsWith(prefix)) continue;
      const rest = scope.slice(prefix.length);
      const colon = rest.indexOf(":");
      if (colon < 0) continue;
      const action = rest.slice(0, colon);
      const target = rest.slice(colon + 1);
      if (action === "tag") {
        if (target !== "" && !this.tags.includes(target)) this.tags.push(target);
        continue;
      }
      if (action !== "configure" && action !== "write" && action !== "read") continue;
      const parts = target.split("/", 3).map((p) => expandClaims(decode(p), vars));
      if (parts.includes(null)) continue;
      const [vhost, name = "*", routingKey = "*"] = parts as [string, string?, string?];
      if (routingKey !== "*") this.hasTopicRules = true;
      const perVhost = vhost.includes(VHOST_VAR) || name.includes(VHOST_VAR) || routingKey.includes(VHOST_VAR);
      this.grants.push({ scope, kind: action, vhost, name, routingKey, perVhost });
    }
  }

  hasVhostAccess(vhost: string): boolean {
    return this.grants.some((g) => wildcardMatches(g.perVhost ? forVhost(g.vhost, vhost) : g.vhost, vhost));
  }

  grantFor(vhost: string, kind: PermissionKind, name: string): string | null {
    return this.grants.find((g) => g.kind === kind && matchesIn(g, vhost, g.vhost, vhost) && matchesIn(g, vhost, g.name, name))?.scope ?? null;
  }

  allows(vhost: string, kind: PermissionKind, name: string): boolean {
    return this.grantFor(vhost, kind, name) !== null;
  }

  allowsTopic(vhost: string, exchange: string, kind: "write" | "read", routingKey: string): boolean {
    if (!this.hasTopicRules) return true;
    return this.grants.some((g) => g.kind === kind && matchesIn(g, vhost, g.vhost, vhost) && matchesIn(g, vhost, g.name, exchange) && matchesIn(g, vhost, g.routingKey, routingKey));
  }
}

/** A grant's pattern against a value, with `{vhost}` expanded when the grant uses it. */
function matchesIn(g: ScopeGrant, vhost: string, pattern: string, value: string): boolean {
  return wildcardMatches(g.perVhost ? forVhost(pattern, vhost) : pattern, value);
}

/** The `scope` claim as RabbitMQ reads it: a space-separated string or a list of strings. */
export function scopesOf(claim: unknown): string[] {
  if (typeof claim === "string") return claim.split(" ").filter((s) => s !== "");
  if (Array.isArray(claim)) return claim.filter((s): s is string => typeof s === "string");
  return [];
}
