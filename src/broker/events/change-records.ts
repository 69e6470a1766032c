/**
 * The before/after records of configuration changes, as the audit trail keeps them. A user's
 * record says whether it has a password, never the password or its hash: the trail is read by
 * people and copied to other systems, and a hash is as good as a password to an offline attack.
 */
import type { User } from "../../auth/user.js";

export interface UserChangeRecord {
  readonly name: string;
  readonly tags: readonly string[];
  readonly limits: Readonly<Record<string, number>>;
  readonly hashing_algorithm: string;
  readonly has_password: boolean;
}

export function userChangeRecord(u: User | undefined): UserChangeRecord | null {
  if (!u) return null;
  return { name: u.name, tags: [...u.tags], limits: { ...u.limits }, hashing_algorithm: u.hashingAlgorithm, has_password: u.passwordHash !== "" };
}
