/**
 * A permission record: three patterns for one (user, vhost) pair, compiled once when set.
 * Kinds (spec "Permission model"): configure = declare/delete; write = publish, bind destination;
 * read = consume, get, purge, bind source, passive declare.
 */
import { compilePattern, type PatternMatcher } from "./permission-pattern.js";

export type PermissionKind = "configure" | "write" | "read";

export interface PermissionSpec {
  readonly configure: string;
  readonly write: string;
  readonly read: string;
}

export class Permission implements PermissionSpec {
  readonly configure: string;
  readonly write: string;
  readonly read: string;
  private readonly matchers: Record<PermissionKind, PatternMatcher>;

  /** Throws InvalidPatternError when any pattern is invalid, so nothing half-valid is ever stored. */
  constructor(readonly user: string, readonly vhost: string, spec: PermissionSpec) {
    this.configure = spec.configure;
    this.write = spec.write;
    this.read = spec.read;
    this.matchers = {
      configure: compilePattern(spec.configure),
      write: compilePattern(spec.write),
      read: compilePattern(spec.read),
    };
  }

  allows(kind: PermissionKind, resourceName: string): boolean {
    return this.matchers[kind].matches(resourceName);
  }

  toJSON(): { user: string; vhost: string; configure: string; write: string; read: string } {
    return { user: this.user, vhost: this.vhost, configure: this.configure, write: this.write, read: this.read };
  }
}
