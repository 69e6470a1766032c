/**
 * The permission explainer: for a user, vhost, permission kind and resource, walks the spec's
 * check order — (a) authentication, (b) vhost access, (c) the pattern (or, for an OAuth 2.0
 * login, the token's scopes), and for a routing key on a topic exchange (d) topic authorisation
 * (the user's topic permission for the exchange: publishing matches the routing key against its
 * write pattern, binding the binding key against its read pattern) — and says which check
 * decided. Steps (b) to (d) are PermissionChecker's explain and explainTopic, the decisions every
 * AMQP and HTTP operation is enforced with; this module only adds what comes before a checker
 * exists (is there such a user, can it log in, does the vhost exist) and words each step for
 * people. Checks after the deciding one are not run, exactly as the broker stops at the first
 * refusal.
 */
import { BrokerError } from "../errors/broker-error.js";
import { PermissionChecker } from "./permission-check.js";
import type { PermissionKind } from "./permission.js";
import type { UserRegistry } from "./user-registry.js";

export type CheckName = "authentication" | "vhost_access" | "pattern" | "scope" | "topic";
export type ResourceKind = "queue" | "exchange";

export interface ExplainQuery {
  readonly user: string;
  readonly vhost: string;
  readonly permission: PermissionKind;
  readonly resource: ResourceKind;
  /** The resource name; "" is the default exchange. */
  readonly name: string;
  /** A routing key (write: publishing) or binding key (read: binding from it), for a topic exchange's topic authorisation. */
  readonly routing_key?: string;
  /** The MQTT client id `{client_id}` in a topic pattern stands for. */
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
  /** At the topic check: the user's topic pattern of the kind, null when none restricts the exchange. */
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
  /** An exchange's type, undefined when there is none: topic authorisation applies to topic exchanges only. */
  readonly exchangeType: (vhost: string, name: string) => string | undefined;
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
  if (d.decidedBy === "pattern") {
    const verb = d.allowed ? "matches" : "does not match";
    checks.push({ check: "pattern", passed: d.allowed, pattern: d.rule, reason: `The ${q.permission} pattern ${quote(d.rule)} ${verb} ${shown}.` });
  } else {
    const reason = d.rule !== null ? `The scope ${quote(d.rule)} grants ${q.permission} on ${shown}.` : `No scope of the token grants ${q.permission} on ${shown} in vhost ${quote(q.vhost)}.`;
    checks.push({ check: "scope", passed: d.allowed, scope: d.rule, reason });
  }
  if (!d.allowed) return finish(q, checks, checker.refusal(q.resource, q.name, q.vhost).replyText);
  const topic = topicCheck(checker, settings, q);
  if (topic === null) return finish(q, checks, null);
  checks.push(topic);
  return finish(q, checks, topic.passed ? null : checker.topicRefusal(q.vhost, q.name, q.routing_key ?? "").replyText);
}

/** (d): only for a routing or binding key on an exchange, and decisive only on a topic exchange. */
function topicCheck(checker: PermissionChecker, settings: ExplainSettings, q: ExplainQuery): CheckOutcome | null {
  const key = q.routing_key;
  if (key === undefined || q.resource !== "exchange" || q.permission === "configure") return null;
  const type = settings.exchangeType(q.vhost, q.name);
  const what = q.permission === "write" ? `routing key ${quote(key)}` : `binding key ${quote(key)}`;
  if (type === undefined) return { check: "topic", passed: true, topic_pattern: null, reason: `There is no exchange ${quote(q.name)} in vhost ${quote(q.vhost)}: the operation would fail with NOT_FOUND, not on a permission.` };
  if (type !== "topic") return { check: "topic", passed: true, topic_pattern: null, reason: `${quote(q.name)} is a ${type} exchange: topic permissions apply to topic exchanges only, so the ${what} is not checked.` };
  // The question's client id, for this answer only (a caller's own checker is lent, not changed).
  const previous = checker.clientId;
  checker.clientId = q.client_id ?? null;
  let t: ReturnType<PermissionChecker["explainTopic"]>;
  try {
    t = checker.explainTopic(q.vhost, q.name, q.permission, key);
  } finally {
    checker.clientId = previous;
  }
  if (t.decidedBy === "none") return { check: "topic", passed: true, topic_pattern: null, reason: `User ${quote(checker.user.name)} has no topic permission for exchange ${quote(q.name)} in vhost ${quote(q.vhost)}, so its keys are not restricted.` };
  if (t.decidedBy === "scope") return { check: "topic", passed: t.allowed, topic_pattern: null, reason: `The token's scopes ${t.allowed ? "grant" : "do not grant"} the ${what} on ${quote(q.name)}.` };
  return { check: "topic", passed: t.allowed, topic_pattern: t.rule, reason: `The topic ${q.permission} pattern ${quote(t.rule)} for ${quote(q.name)} ${t.allowed ? "matches" : "does not match"} the ${what}.` };
}

function finish(q: ExplainQuery, checks: CheckOutcome[], refusal: string | null): PermissionExplanation {
  const last = checks[checks.length - 1]!;
  return { ...q, allowed: last.passed, decided_by: last.check, checks, refusal: last.passed ? null : refusal };
}
