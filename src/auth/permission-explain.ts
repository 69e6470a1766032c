/**
 * The permission explainer: for a user, vhost, permission kind and resource, walks the spec's
 * check order — (a) authentication, (b) vhost access, (c) the pattern (or, for an OAuth 2.0
 * login, the token's scopes) — and says which check decided. Steps (b) and (c) are
 * PermissionChecker.explain, the decision every AMQP and HTTP operation is enforced with; this
 * module only adds what comes before a checker exists (is there such a user, can it log in, does
 * the vhost exist) and words each step for people. Checks after the deciding one are not run,
 * exactly as the broker stops at the first refusal.
 *
 * A topic question (resource "topic", permission write or read, `name` a routing or binding key
 * on the topic exchange `exchange`, optionally for an MQTT `client_id`) explains topic
 * authorisation as step (c) instead: the user's topic permission for the exchange, with
 * `{username}`, `{vhost}` and `{client_id}` expanded, as publishing (write) and binding or MQTT
 * subscribing (read) check it (PermissionChecker.explainTopic).
 */
import { BrokerError } from "../errors/broker-error.js";
import { PermissionChecker } from "./permission-check.js";
import type { PermissionKind } from "./permission.js";
import type { UserRegistry } from "./user-registry.js";

export type CheckName = "authentication" | "vhost_access" | "pattern" | "scope" | "topic";
export type ResourceKind = "queue" | "exchange" | "topic";

export interface ExplainQuery {
  readonly user: string;
  readonly vhost: string;
  readonly permission: PermissionKind;
  readonly resource: ResourceKind;
  /** The resource name; "" is the default exchange. For a topic, the routing or binding key. */
  readonly name: string;
  /** For a topic: the topic exchange (amq.topic for MQTT). */
  readonly exchange?: string;
  /** For a topic: the MQTT client id `{client_id}` stands for. */
  readonly client_id?: string;
}

export interface CheckOutcome {
  readonly check: CheckName;
  readonly passed: boolean;
  /** One sentence for people. */
  readonly reason: string;
  /** At the pattern check: the user's pattern of the needed kind. */
  readonly pattern?: string;
  /** At the scope check: the scope that allowed, or null when none did. */
  readonly scope?: string | null;
  /** At the topic check: the topic pattern as it applied (variables expanded), or null when the user has none for the exchange. */
  readonly topic_pattern?: string | null;
}

export interface PermissionExplanation extends ExplainQuery {
  readonly allowed: boolean;
  readonly decided_by: CheckName;
  /** The checks run, in order; the last one decided. */
  readonly checks: readonly CheckOutcome[];
  /** What a client would be told when refused (AMQP reply text); null when allowed. */
  readonly refusal: string | null;
}

/** What the explainer needs to know about the broker beyond the users. */
export interface ExplainSettings {
  readonly vhostExists: (vhost: string) => boolean;
  /** RabbitMQ's loopback_users: a note, not a refusal (it depends on where the client connects from). */
  readonly loopbackUsers: readonly string[];
}

const quote = (name: string): string => `'${name}'`;
const LOGIN_REFUSED = new BrokerError("accessRefused", "Login was refused using authentication mechanism PLAIN. For details see the broker logfile.").replyText;

/** Explains for an internal user named in the query (the administrator's question about anyone). */
export function explainForUser(registry: UserRegistry, settings: ExplainSettings, q: ExplainQuery): PermissionExplanation {
  const user = registry.get(q.user);
  if (!user) return finish(q, [{ check: "authentication", passed: false, reason: `There is no user ${quote(q.user)}, so its login is refused.` }], LOGIN_REFUSED);
  if (user.passwordHash === "") {
    return finish(q, [{ check: "authentication", passed: false, reason: `User ${quote(q.user)} has no password, so a password login is refused.` }], LOGIN_REFUSED);
  }
  const loopback = settings.loopbackUsers.includes(user.name) ? " It may only log in from localhost (loopback_users)." : "";
  const auth: CheckOutcome = { check: "authentication", passed: true, reason: `User ${quote(q.user)} exists and logs in with its password.${loopback}` };
  return explainWithChecker(new PermissionChecker(registry, user), settings, q, auth);
}

/**
 * Explains with a checker the caller already holds: its own login's, so an OAuth 2.0 user's
 * answer comes from its token's scopes. `auth` is how that login was authenticated.
 */
export function explainWithChecker(checker: PermissionChecker, settings: ExplainSettings, q: ExplainQuery, auth: CheckOutcome): PermissionExplanation {
  const checks: CheckOutcome[] = [auth];
  const user = quote(checker.user.name);
  if (!settings.vhostExists(q.vhost)) {
    checks.push({ check: "vhost_access", passed: false, reason: `There is no vhost ${quote(q.vhost)}.` });
    return finish(q, checks, new BrokerError("notAllowed", `vhost ${q.vhost} not found`).replyText);
  }
  const d = checker.explain(q.vhost, q.permission, q.name);
  const shown = q.name === "" ? "the empty name (the default exchange)" : quote(q.name);
  if (d.decidedBy === "vhost_access") {
    const why = checker.user.isInternal ? `holds no permission in vhost ${quote(q.vhost)}` : `has no scope that names vhost ${quote(q.vhost)}`;
    checks.push({ check: "vhost_access", passed: false, reason: `User ${user} ${why}.` });
    return finish(q, checks, new BrokerError("notAllowed", `access to vhost '${q.vhost}' refused for user '${checker.user.name}'`).replyText);
  }
  checks.push({ check: "vhost_access", passed: true, reason: `User ${user} has access to vhost ${quote(q.vhost)}.` });
  if (q.resource === "topic") return explainTopic(checker, q, checks);
  if (d.decidedBy === "pattern") {
    const verb = d.allowed ? "matches" : "does not match";
    checks.push({ check: "pattern", passed: d.allowed, pattern: d.rule, reason: `The ${q.permission} pattern ${quote(d.rule)} ${verb} ${shown}.` });
  } else {
    const reason = d.rule !== null ? `The scope ${quote(d.rule)} grants ${q.permission} on ${shown}.` : `No scope of the token grants ${q.permission} on ${shown} in vhost ${quote(q.vhost)}.`;
    checks.push({ check: "scope", passed: d.allowed, scope: d.rule, reason });
  }
  return finish(q, checks, d.allowed ? null : checker.refusal(q.resource, q.name, q.vhost).replyText);
}

/** Step (c) of a topic question: the topic permission for the exchange, as the checker enforces it. */
function explainTopic(checker: PermissionChecker, q: ExplainQuery, checks: CheckOutcome[]): PermissionExplanation {
  const exchange = q.exchange ?? "amq.topic";
  const kind = q.permission === "read" ? "read" : "write";
  // The question's client id, for this answer only (a caller's own checker is lent, not changed).
  const previous = checker.clientId;
  checker.clientId = q.client_id ?? null;
  let t: ReturnType<PermissionChecker["explainTopic"]>;
  try {
    t = checker.explainTopic(q.vhost, exchange, kind, q.name);
  } finally {
    checker.clientId = previous;
  }
  const key = quote(q.name);
  let reason: string;
  if (t.byScope) reason = t.allowed ? `A scope of the token grants topic ${kind} on ${key} in exchange ${quote(exchange)}.` : `No scope of the token grants topic ${kind} on ${key} in exchange ${quote(exchange)}.`;
  else if (t.pattern === null) reason = `User ${quote(checker.user.name)} has no topic permission for exchange ${quote(exchange)} in this vhost, so its keys are not restricted.`;
  else reason = `The topic ${kind} pattern ${quote(t.pattern)} ${t.allowed ? "matches" : "does not match"} ${key}.`;
  checks.push({ check: "topic", passed: t.allowed, topic_pattern: t.pattern, reason });
  return finish(q, checks, t.allowed ? null : checker.topicRefusal(q.vhost, exchange, q.name).replyText);
}

function finish(q: ExplainQuery, checks: CheckOutcome[], refusal: string | null): PermissionExplanation {
  const last = checks[checks.length - 1]!;
  return { ...q, allowed: last.passed, decided_by: last.check, checks, refusal: last.passed ? null : refusal };
}
