/**
 * What the logged-in user may do, so pages offer only actions that would succeed. The decisions
 * come from the broker (GET /api/coney/my-access, the checker every operation is enforced with):
 * the UI never evaluates a permission pattern itself. The app loads the user's Access on every
 * page change (main.ts); checks.ts asks about a page's own objects; `why*` word a refusal for
 * people ("read-only in shop: ask an administrator").
 */

export type Kind = "configure" | "write" | "read";

export interface VhostAccess {
  readonly name: string;
  /** The user's patterns; null for an OAuth 2.0 login (its token's scopes decide). */
  readonly configure: string | null;
  readonly write: string | null;
  readonly read: string | null;
  /** Whether each kind could allow any named resource at all ("^$" and "" allow none). */
  readonly may: Readonly<Record<Kind, boolean>>;
}

export interface TopicPermission {
  readonly user: string;
  readonly vhost: string;
  readonly exchange: string;
  readonly write: string;
  readonly read: string;
}

export interface Access {
  readonly user: string;
  readonly vhosts: readonly VhostAccess[];
  readonly topic_permissions: readonly TopicPermission[];
}

export type Decision = { readonly name: string } & Readonly<Record<Kind, boolean>>;

export interface Checks {
  readonly vhost: string;
  readonly queues: readonly Decision[];
  readonly exchanges: readonly Decision[];
}

export const vhostAccess = (access: Access, vhost: string): VhostAccess | undefined => access.vhosts.find((v) => v.name === vhost);

/** The vhosts where the user may `kind` some named resource (e.g. declare a queue). */
export const vhostsWhere = (access: Access, kind: Kind): string[] => access.vhosts.filter((v) => v.may[kind]).map((v) => v.name);

/** Neither configure nor write can allow anything: the user may only look (and read). */
const readOnly = (v: VhostAccess): boolean => !v.may.configure && !v.may.write;

/** Why nothing of `kind` is possible anywhere (an Add form with no vhost to add in). */
export function whyNowhere(access: Access, kind: Kind, action: string): string {
  if (access.vhosts.length === 0) return `${action} needs a permission in a virtual host, and you hold none: ask an administrator.`;
  const ro = access.vhosts.filter(readOnly).map((v) => v.name);
  const where = ro.length === access.vhosts.length ? `you are read-only in ${ro.join(", ")}` : `no ${kind} pattern of yours allows a name`;
  return `${action} needs the ${kind} permission: ${where}. Ask an administrator.`;
}

/** Why no name at all may be `kind`-ed in `vhost` (its pattern is one of RabbitMQ's "nothing" patterns). */
export function whyNoneIn(access: Access | null, vhost: string, kind: Kind, action: string): string {
  const v = access ? vhostAccess(access, vhost) : undefined;
  if (!v) return `${action} needs a permission in virtual host ${vhost}, and you hold none there: ask an administrator.`;
  if (readOnly(v)) return `${action} needs the ${kind} permission: read-only in ${vhost}: ask an administrator.`;
  return `${action} needs the ${kind} permission, and your ${kind} pattern in ${vhost} (“${v[kind] ?? ""}”) allows no name: ask an administrator.`;
}

/** Why `kind` on `name` in `vhost` is refused, from what the broker said of the user's access. */
export function whyRefused(access: Access | null, vhost: string, kind: Kind, name: string, action: string): string {
  const v = access ? vhostAccess(access, vhost) : undefined;
  if (!v) return `${action} needs a permission in virtual host ${vhost}, and you hold none there: ask an administrator.`;
  if (readOnly(v) && kind !== "read") return `${action} needs the ${kind} permission: read-only in ${vhost}: ask an administrator.`;
  const shown = name === "" ? "the default exchange" : `“${name}”`;
  const pattern = v[kind];
  if (pattern === null) return `${action} needs the ${kind} permission on ${shown}, which your token's scopes do not grant.`;
  return `${action} needs the ${kind} permission on ${shown}; your ${kind} pattern in ${vhost} is “${pattern}”, which does not match it. Ask an administrator.`;
}

/** The decision for one name, or undefined while the answer is not in. */
export const decisionOf = (list: readonly Decision[] | undefined, name: string): Decision | undefined => list?.find((d) => d.name === name);

