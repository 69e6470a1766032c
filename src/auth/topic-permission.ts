/**
 * A topic permission (RabbitMQ's topic authorisation): for one (user, vhost, topic exchange),
 * a write pattern over the routing keys the user may publish with and a read pattern over the
 * binding keys it may bind with. Patterns match unanchored like permission patterns, after
 * RabbitMQ's variable expansion of `{username}` and `{vhost}` (once, here) and, for MQTT
 * connections, `{client_id}` (per check: it is the connection's; compiled patterns are cached by
 * permission-pattern.ts). Where no client id is known (AMQP, HTTP), `{client_id}` stays as
 * written, as RabbitMQ leaves a variable its context does not define. A user without a topic
 * permission for an exchange is not restricted on it.
 */
import { compilePattern, type PatternMatcher } from "./permission-pattern.js";

export type TopicKind = "write" | "read";

export interface TopicPermissionSpec {
  readonly exchange: string;
  readonly write: string;
  readonly read: string;
}

const expand = (pattern: string, user: string, vhost: string): string => pattern.replaceAll("{username}", user).replaceAll("{vhost}", vhost);
const CLIENT_ID = "{client_id}";

export class TopicPermission implements TopicPermissionSpec {
  readonly exchange: string;
  readonly write: string;
  readonly read: string;
  private readonly matchers: Record<TopicKind, PatternMatcher>;
  /** The patterns, expanded but for `{client_id}`, of the kinds that use it. */
  private readonly perClient: Partial<Record<TopicKind, string>> = {};

  /** Throws InvalidPatternError when a pattern is invalid, so nothing half-valid is stored. */
  constructor(readonly user: string, readonly vhost: string, spec: TopicPermissionSpec) {
    this.exchange = spec.exchange;
    this.write = spec.write;
    this.read = spec.read;
    const write = expand(spec.write, user, vhost);
    const read = expand(spec.read, user, vhost);
    this.matchers = { write: compilePattern(write), read: compilePattern(read) };
    if (write.includes(CLIENT_ID)) this.perClient.write = write;
    if (read.includes(CLIENT_ID)) this.perClient.read = read;
  }

  /** `clientId`: the MQTT client's id for `{client_id}`; null where there is none. */
  allows(kind: TopicKind, routingKey: string, clientId: string | null = null): boolean {
    const perClient = clientId === null ? undefined : this.perClient[kind];
    if (perClient === undefined) return this.matchers[kind].matches(routingKey);
    try {
      return compilePattern(perClient.replaceAll(CLIENT_ID, clientId!)).matches(routingKey);
    } catch {
      // A client id that makes the pattern invalid (an unbalanced bracket) is refused, not obeyed.
      return false;
    }
  }

  /** The pattern of `kind` as it applies to a client with this id (null: none), for explanations. */
  expanded(kind: TopicKind, clientId: string | null): string {
    const perClient = clientId === null ? undefined : this.perClient[kind];
    return perClient === undefined ? this.matchers[kind].source : perClient.replaceAll(CLIENT_ID, clientId!);
  }

  toJSON(): { user: string; vhost: string; exchange: string; write: string; read: string } {
    return { user: this.user, vhost: this.vhost, exchange: this.exchange, write: this.write, read: this.read };
  }
}
