/**
 * Which upstreams a federated exchange or queue has, and with what settings: the policy's
 * `federation-upstream` (one upstream), `federation-upstream-set` (a set parameter, or "all" for
 * every upstream of the vhost) or `federation-upstream-pattern` (every upstream whose name matches
 * the regular expression), each upstream's keys overridden by its set member's, with RabbitMQ's
 * defaults (rabbit_federation_upstream:from_upstream_or_set).
 */
export type AckMode = "on-confirm" | "on-publish" | "no-ack";

export interface Upstream {
  /** The federation-upstream parameter's name. */
  readonly name: string;
  readonly uris: readonly string[];
  /** The upstream exchange or queue name (default: the downstream's own name). */
  readonly exchange: string;
  readonly queue: string;
  readonly consumerTag: string;
  readonly prefetchCount: number;
  /** Seconds. */
  readonly reconnectDelay: number;
  readonly maxHops: number;
  /** The upstream queue's x-expires / x-message-ttl (ms); null = none. */
  readonly expires: number | null;
  readonly messageTtl: number | null;
  readonly trustUserId: boolean;
  readonly ackMode: AckMode;
  readonly queueType: "classic" | "quorum";
  readonly resourceCleanupMode: "default" | "never";
}

/** The upstream keys of a policy definition (validated by the broker's policy rules). */
export const UPSTREAM_KEY = "federation-upstream";
export const UPSTREAM_SET_KEY = "federation-upstream-set";
export const UPSTREAM_PATTERN_KEY = "federation-upstream-pattern";

type Params = ReadonlyMap<string, unknown> | undefined;

/** True when a policy definition federates what it applies to. */
export function federates(definition: Readonly<Record<string, unknown>>): boolean {
  return typeof definition[UPSTREAM_KEY] === "string" || typeof definition[UPSTREAM_SET_KEY] === "string" || typeof definition[UPSTREAM_PATTERN_KEY] === "string";
}

/**
 * The upstreams for a resource named `name` under `definition`, given the vhost's
 * federation-upstream and federation-upstream-set parameters. A set member naming a missing
 * upstream is skipped, as RabbitMQ skips it.
 */
export function upstreamsFor(definition: Readonly<Record<string, unknown>>, name: string, upstreams: Params, sets: Params): Upstream[] {
  const members = setMembers(definition, upstreams, sets);
  const out: Upstream[] = [];
  for (const member of members) {
    const upstreamName = member["upstream"];
    if (typeof upstreamName !== "string") continue;
    const u = upstreams?.get(upstreamName);
    if (u === null || typeof u !== "object") continue;
    out.push(resolve(upstreamName, member, u as Record<string, unknown>, name));
  }
  return out;
}

function setMembers(definition: Readonly<Record<string, unknown>>, upstreams: Params, sets: Params): Record<string, unknown>[] {
  const one = definition[UPSTREAM_KEY];
  if (typeof one === "string") return [{ upstream: one }];
  const set = definition[UPSTREAM_SET_KEY];
  if (set === "all") return [...(upstreams?.keys() ?? [])].sort().map((upstream) => ({ upstream }));
  if (typeof set === "string") {
    const members = sets?.get(set);
    return Array.isArray(members) ? members.filter((m): m is Record<string, unknown> => m !== null && typeof m === "object") : [];
  }
  const pattern = definition[UPSTREAM_PATTERN_KEY];
  if (typeof pattern === "string") {
    const re = new RegExp(pattern, "u");
    return [...(upstreams?.keys() ?? [])].filter((n) => re.test(n)).sort().map((upstream) => ({ upstream }));
  }
  return [];
}

function resolve(upstreamName: string, member: Record<string, unknown>, u: Record<string, unknown>, name: string): Upstream {
  const get = (key: string): unknown => member[key] ?? u[key];
  const num = (key: string, d: number): number => (typeof get(key) === "number" ? (get(key) as number) : d);
  const numOrNull = (key: string): number | null => (typeof get(key) === "number" ? (get(key) as number) : null);
  const str = (key: string, d: string): string => (typeof get(key) === "string" ? (get(key) as string) : d);
  const uri = get("uri");
  return {
    name: upstreamName,
    uris: Array.isArray(uri) ? uri.filter((x): x is string => typeof x === "string") : typeof uri === "string" ? [uri] : [],
    exchange: str("exchange", name),
    queue: str("queue", name),
    consumerTag: str("consumer-tag", `federation-link-${upstreamName}`),
    prefetchCount: num("prefetch-count", 1000),
    reconnectDelay: num("reconnect-delay", 5),
    maxHops: num("max-hops", 1),
    expires: numOrNull("expires"),
    messageTtl: numOrNull("message-ttl"),
    trustUserId: get("trust-user-id") === true,
    ackMode: str("ack-mode", "on-confirm") as AckMode,
    queueType: str("queue-type", "classic") as "classic" | "quorum",
    resourceCleanupMode: str("resource-cleanup-mode", "default") as "default" | "never",
  };
}
