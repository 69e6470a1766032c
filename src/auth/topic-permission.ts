/**
 * A topic permission (RabbitMQ's topic authorisation): for one (user, vhost, topic exchange),
 * a write pattern over the routing keys the user may publish with and a read pattern over the
 * binding keys it may bind with. Patterns match unanchored like permission patterns, after
 * RabbitMQ's variable expansion of `{username}` and `{vhost}`. A user without a topic permission
 * for an exchange is not restricted on it.
 */
import { compilePattern, type PatternMatcher } from "./permission-pattern.js";

export type TopicKind = "write" | "read";

export interface TopicPermissionSpec {
  readonly exchange: string;
  readonly write: string;
  readonly read: string;
}

const expand = (pattern: string, user: string, vhost: string): string => pattern.replaceAll("{username}", user).replaceAll("{vhost}", vhost);

export class TopicPermission implements TopicPermissionSpec {
  readonly exchange: string;
  readonly write: string;
  readonly read: string;
  private readonly matchers: Record<TopicKind, PatternMatcher>;

  /** Throws InvalidPatternError when a pattern is invalid, so nothing half-valid is stored. */
  constructor(readonly user: string, readonly vhost: string, spec: TopicPermissionSpec) {
    this.exchange = spec.exchange;
    this.write = spec.write;
    this.read = spec.read;
    this.matchers = { write: compilePattern(expand(spec.write, user, vhost)), read: compilePattern(expand(spec.read, user, vhost)) };
  }

  allows(kind: TopicKind, routingKey: string): boolean {
    return this.matchers[kind].matches(routingKey);
  }

  toJSON(): { user: string; vhost: string; exchange: string; write: string; read: string } {
    return { user: this.user, vhost: this.vhost, exchange: this.exchange, write: this.write, read: this.read };
  }
}
