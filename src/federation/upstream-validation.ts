/**
 * Validation of the `federation-upstream` and `federation-upstream-set` runtime parameters, with
 * RabbitMQ 3.10's texts (rabbit_federation_parameters + rabbit_parameter_validation): each
 * upstream is a JSON object whose keys are checked in order, one text per problem, listed as
 * RabbitMQ lists them (unrecognised keys first, then the checks last-to-first). `queue-type`
 * is RabbitMQ 3.13's key (3.10 refuses it); Coney takes it as the newer plugin does.
 *
 * Pure functions: the URI parser is passed in (src/links owns AMQP URIs), so this module can be
 * tested without a broker.
 */
import { erlangTerm } from "../errors/erlang-term.js";

/** Returns RabbitMQ's reason why a URI is unusable, or null when it parses. */
export type UriCheck = (uri: string) => string | null;

type Check = (key: string, value: unknown) => string | null;

const number: Check = (k, v) => (typeof v === "number" ? null : `${k} should be a number, actually was ${erlangTerm(v)}`);
const binary: Check = (k, v) => (typeof v === "string" ? null : `${k} should be binary, actually was ${erlangTerm(v)}`);
const boolean: Check = (k, v) => (typeof v === "boolean" ? null : `${k} should be boolean, actually was ${erlangTerm(v)}`);
const oneOf = (...values: string[]): Check => (k, v) =>
  typeof v === "string" && values.includes(v) ? null : `${k} should be one of ${erlangTerm(values)}, actually was ${erlangTerm(v)}`;

/** The keys an upstream and a set member share (rabbit_federation_parameters:shared_validation/0). */
const SHARED: ReadonlyArray<readonly [string, Check]> = [
  ["exchange", binary],
  ["queue", binary],
  ["consumer-tag", binary],
  ["prefetch-count", number],
  ["reconnect-delay", number],
  ["max-hops", number],
  ["expires", number],
  ["message-ttl", number],
  ["trust-user-id", boolean],
  ["ack-mode", oneOf("no-ack", "on-publish", "on-confirm")],
  ["resource-cleanup-mode", oneOf("default", "never")],
  ["queue-type", oneOf("classic", "quorum")],
  ["ha-policy", binary],
  ["bind-nowait", boolean],
  ["channel-use-mode", oneOf("multiple", "single")],
];

function uriCheck(checkUri: UriCheck): Check {
  const one = (k: string, v: unknown): string | null => {
    if (typeof v !== "string") return `${k} should be list, actually was ${erlangTerm(v)}`;
    const reason = checkUri(v);
    return reason === null ? null : `"${v}" not a valid URI: ${reason}`;
  };
  return (k, v) => {
    if (!Array.isArray(v)) return one(k, v);
    // Coney refuses an empty list (RabbitMQ 3.10 stores it, and the link can never connect).
    if (v.length === 0) return `${k} should name at least one URI`;
    for (const u of v) {
      const problem = one(k, u);
      if (problem !== null) return problem;
    }
    return null;
  };
}

/** rabbit_parameter_validation:proplist: mandatory keys, each key's check, then unrecognised keys. */
function proplist(name: string, term: unknown, what: string, constraints: ReadonlyArray<readonly [string, Check, boolean]>): string[] {
  if (term === null || typeof term !== "object" || Array.isArray(term)) return [`${what} ${name} must be a JSON object, actually was ${erlangTerm(term)}`];
  const value = term as Record<string, unknown>;
  const results: string[] = [];
  const seen = new Set<string>();
  for (const [key, check, mandatory] of constraints) {
    seen.add(key);
    if (!(key in value)) {
      if (mandatory) results.unshift(`Key "${key}" not found in ${name}`);
      continue;
    }
    const problem = check(key, value[key]);
    if (problem !== null) results.unshift(problem);
  }
  const rest = Object.entries(value).filter(([k]) => !seen.has(k));
  if (rest.length > 0) results.unshift(`Unrecognised terms ${erlangTerm(Object.fromEntries(rest))} in ${name}`);
  return results;
}

/** The 400 lines for a federation-upstream value; empty when it is valid. */
export function validateUpstream(name: string, value: unknown, checkUri: UriCheck): string[] {
  return proplist(name, value, "federation-upstream", [["uri", uriCheck(checkUri), true], ...SHARED.map(([k, c]) => [k, c, false] as const)]);
}

/** The 400 lines for a federation-upstream-set value (a list of {upstream, …overrides}); empty when valid. */
export function validateUpstreamSet(name: string, value: unknown): string[] {
  if (!Array.isArray(value)) return [`federation-upstream-set ${name} must be a list of upstreams, actually was ${erlangTerm(value)}`];
  const constraints = [["upstream", binary, true] as const, ...SHARED.map(([k, c]) => [k, c, false] as const)];
  return value.flatMap((member) => proplist(name, member, "a member of federation-upstream-set", constraints));
}
