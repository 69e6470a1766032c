/**
 * The health checks a follower answers itself (docs/CLUSTERING.md, "Clients"), because only this
 * node can say them: whether it leads (`/api/health/checks/cluster-leader`, for a load balancer
 * that sends clients to the leader) and whether stopping it would stall confirms
 * (`/api/health/checks/node-is-quorum-critical`, for rolling restarts). Every other request is
 * forwarded to the leader (follower-http.ts decides per request). The caller is authenticated as
 * the leader would: HTTP Basic against the users of the leader's definitions, replicated to this
 * node's disk, with the same password hashing, loopback-only users and management tags; or an
 * OAuth 2.0 bearer token verified with the node's own token settings (its scopes give the tags).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isHashingAlgorithm, verifyPassword } from "../auth/password.js";
import { isManagementUser, parseTags } from "../auth/user.js";
import { isLoopbackAddress } from "../auth/peer-address.js";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { ConeyConfig } from "../config/config.js";
import type { LocalAnswer } from "./follower-http.js";
import type { RequestHead } from "./request-head.js";

export const CLUSTER_LEADER_CHECK = "/api/health/checks/cluster-leader";
export const QUORUM_CRITICAL_CHECK = "/api/health/checks/node-is-quorum-critical";

/** What the checks need to know of this node's view of the cluster. */
export interface FollowerView {
  readonly me: string;
  leader(): string | null;
  /** Why stopping this node would leave too few in-sync followers; null when it would not. */
  quorumCritical(): string | null;
}

/** A follower's responder for its HTTP port (follower-http.ts): the checks answered here, with the node's users and OAuth settings. */
export function followerResponder(config: ConeyConfig, view: FollowerView): (head: RequestHead, remoteAddress: string) => Promise<LocalAnswer | null> {
  const o = config;
  const tokens = o.oauthResourceServerId === null ? null : new TokenVerifier({ resourceServerId: o.oauthResourceServerId, keyFiles: o.oauthKeyFiles, hmacSecrets: o.oauthHmacSecrets, jwksUrl: o.oauthJwksUrl });
  const health = new FollowerHealth(config.dataDir, config.loopbackUsers, view, tokens);
  return (head, remote) => health.answer(head, remote);
}

/** Why stopping `me` would leave fewer in-sync followers than confirms need (`min`); null when it would not, or `me` is not in sync. */
export function quorumCriticalReason(me: string, inSync: { readonly leader: string; readonly nodes: readonly string[] } | null, min: number): string | null {
  if (inSync === null || !inSync.nodes.includes(me)) return null;
  const left = inSync.nodes.filter((n) => n !== inSync.leader).length - 1;
  return left < min ? `Stopping ${me} would leave ${left} in-sync followers, fewer than min-in-sync-replicas (${min}): publisher confirms would wait` : null;
}

interface StoredUser {
  readonly passwordHash: string;
  readonly algorithm: string;
  readonly tags: string[];
}

interface Snapshot {
  readonly mtimeMs: number;
  readonly size: number;
  readonly users: ReadonlyMap<string, StoredUser>;
  readonly durableQueues: ReadonlyArray<{ name: string; vhost: string }>;
}

export class FollowerHealth {
  private snapshot: Snapshot | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly loopbackUsers: readonly string[],
    private readonly view: FollowerView,
    private readonly tokens: TokenVerifier | null = null,
  ) {}

  /** This node's answer to a check only it can give; null to forward the request to the leader. */
  async answer(head: RequestHead, remoteAddress: string): Promise<LocalAnswer | null> {
    const path = head.path.endsWith("/") ? head.path.slice(0, -1) : head.path;
    if (path !== CLUSTER_LEADER_CHECK && path !== QUORUM_CRITICAL_CHECK) return null;
    if (head.method !== "GET" && head.method !== "HEAD") return null;
    const refusal = await this.refusal(head.headers.get("authorization"), remoteAddress);
    if (refusal !== null) return { ...refusal, ...(refusal.status === 401 ? { headers: { "www-authenticate": 'Basic realm="RabbitMQ Management"' } } : {}) };
    if (path === CLUSTER_LEADER_CHECK) {
      const leader = this.view.leader();
      const reason = leader === null ? `${this.view.me} is not the cluster leader; no leader is elected` : `${this.view.me} is not the cluster leader; the leader is ${leader}`;
      return { status: 503, body: { status: "failed", reason, leader } };
    }
    const critical = this.view.quorumCritical();
    if (critical === null) return { status: 200, body: { status: "ok" } };
    const queues = this.definitions().durableQueues.map((q) => ({ name: q.name, virtual_host: q.vhost, type: "classic" }));
    return { status: 503, body: { status: "failed", reason: critical, queues } };
  }

  /** 401 or 403 as the leader's authentication (src/http/http-auth.ts) would answer; null to proceed. */
  private async refusal(authorization: string | undefined, remoteAddress: string): Promise<{ status: number; body: unknown } | null> {
    const failed = { status: 401, body: { error: "not_authorized", reason: "Login failed" } };
    if (authorization === undefined) return { status: 401, body: null };
    if (this.tokens !== null && authorization.slice(0, 7).toLowerCase() === "bearer ") {
      try {
        const login = await this.tokens.verify(authorization.slice(7).trim());
        return isManagementUser(login.user) ? null : { status: 403, body: { error: "not_authorised", reason: "Not management user" } };
      } catch {
        return failed;
      }
    }
    if (authorization.slice(0, 6).toLowerCase() !== "basic ") return failed;
    const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return failed;
    const name = decoded.slice(0, colon);
    const user = this.definitions().users.get(name);
    if (!user || !isHashingAlgorithm(user.algorithm) || !verifyPassword(decoded.slice(colon + 1), user.passwordHash, user.algorithm)) return failed;
    if (this.loopbackUsers.includes(name) && !isLoopbackAddress(remoteAddress)) return { status: 401, body: { error: "not_authorized", reason: "User can only log in via localhost" } };
    if (!isManagementUser(user)) return { status: 403, body: { error: "not_authorised", reason: "Not management user" } };
    return null;
  }

  /** The replicated definitions, re-read only when the file changed (the leader rewrites it atomically). */
  private definitions(): Snapshot {
    const file = join(this.dataDir, DEFINITIONS_FILE);
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st) return (this.snapshot = { mtimeMs: 0, size: 0, users: new Map(), durableQueues: [] });
    const s = this.snapshot;
    if (s && s.mtimeMs === st.mtimeMs && s.size === st.size) return s;
    const users = new Map<string, StoredUser>();
    const durableQueues: Array<{ name: string; vhost: string }> = [];
    try {
      const defs = JSON.parse(readFileSync(file, "utf8")) as { users?: unknown; queues?: unknown };
      for (const u of Array.isArray(defs.users) ? (defs.users as Array<Record<string, unknown>>) : []) {
        if (typeof u["name"] !== "string") continue;
        const algorithm = typeof u["hashing_algorithm"] === "string" ? u["hashing_algorithm"] : "rabbit_password_hashing_sha256";
        users.set(u["name"], { passwordHash: typeof u["password_hash"] === "string" ? u["password_hash"] : "", algorithm, tags: parseTags(u["tags"]) ?? [] });
      }
      for (const q of Array.isArray(defs.queues) ? (defs.queues as Array<Record<string, unknown>>) : []) {
        if (q["durable"] === true && typeof q["name"] === "string" && typeof q["vhost"] === "string") durableQueues.push({ name: q["name"], vhost: q["vhost"] });
      }
    } catch {
      // A file being replaced is read again at the next request; until then nobody logs in here.
    }
    return (this.snapshot = { mtimeMs: st.mtimeMs, size: st.size, users, durableQueues });
  }
}
