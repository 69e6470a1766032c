/**
 * A user of the broker: credentials and management tags. Permissions are held per (user, vhost)
 * in the UserRegistry, not here, so that a permission change is one place to look.
 */
import type { HashingAlgorithm } from "./password.js";

/** The management tags RabbitMQ gives meaning to; other tags are stored as they are. */
export type KnownTag = "administrator" | "monitoring" | "policymaker" | "management" | "impersonator";

export interface UserLimits {
  "max-connections"?: number;
  "max-channels"?: number;
}

export interface User {
  readonly name: string;
  /** base64(salt ++ digest), "" when the user cannot log in with a password. */
  passwordHash: string;
  hashingAlgorithm: HashingAlgorithm;
  tags: string[];
  limits: UserLimits;
  /** False for users that exist only for the length of a login (OAuth 2.0 token users). */
  readonly isInternal: boolean;
}

const hasAny = (tags: readonly string[], wanted: readonly string[]): boolean => tags.some((t) => wanted.includes(t));

/** RabbitMQ's tag sets (rabbit_web_dispatch_access_control: is_admin, is_policymaker, is_monitor, is_mgmt_user). */
export const isAdministrator = (u: Pick<User, "tags">): boolean => hasAny(u.tags, ["administrator"]);
export const isPolicymaker = (u: Pick<User, "tags">): boolean => hasAny(u.tags, ["administrator", "policymaker"]);
export const isMonitor = (u: Pick<User, "tags">): boolean => hasAny(u.tags, ["administrator", "monitoring"]);
export const isManagementUser = (u: Pick<User, "tags">): boolean =>
  hasAny(u.tags, ["administrator", "monitoring", "policymaker", "management"]);

/** Parses tags given as a comma-separated string or an array (both forms are in use), trimmed, empty ones dropped. */
export function parseTags(value: unknown): string[] | null {
  let parts: unknown[];
  if (typeof value === "string") parts = value.split(",");
  else if (Array.isArray(value)) parts = value;
  else return null;
  const tags: string[] = [];
  for (const p of parts) {
    if (typeof p !== "string") return null;
    const t = p.trim();
    if (t !== "" && !tags.includes(t)) tags.push(t);
  }
  return tags;
}
