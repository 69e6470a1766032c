/**
 * One broker's lists and figures from any node of a spread cluster (docs/CLUSTERING.md, "A spread
 * cluster over etcd"): the same seam as `coney --workers N` (src/http/peer-records.ts's
 * PeerRecords, filled there over IPC), filled here over the node links with node queries
 * (src/node-link/node-query-frames.ts, frame 60). A connection lives on the node that accepted
 * it, so /api/connections, channels, consumers and the overview's totals are gathered from every
 * node that is linked, each answering from its own broker (src/http/local-records.ts), and merged
 * by the answering node's API; another node's process figures for /api/nodes are asked the same
 * way. A node that is down, not linked, fails or does not answer within the timeout is left out,
 * and the list still comes without it (as under workers).
 *
 * Queries (JSON): `{topic: "records", query}` (a PeerQuery), `{topic: "figures"}` (its
 * process record and bound listeners), `{topic: "applied", revision}` (answered once the node
 * applied the definitions log up to that etcd revision: the barrier, spread-definitions.ts),
 * `{topic: "mqtt-claim", claim}` (an MQTT CONNECT claimed a client id on the asking node: this
 * node closes its own earlier holder, src/mqtt/client-id-peers.ts; sent once per CONNECT), and
 * `{topic: "mqtt-take-over", claim}` (the same, asked before the CONNECT opens its session:
 * answered once the holder is closed and every node applied what its close changed, its
 * exclusive queues gone, as the workers' IPC request is).
 */
import type { PeerQuery, PeerRecords } from "../http/peer-records.js";
import type { PeerListener } from "../http/peer-nodes.js";
import type { ClientIdClaim, ClientIdPeers } from "../mqtt/client-id-peers.js";
import type { LeaderLink } from "../node-link/node-link.js";
import { withTimeout } from "./etcd-session.js";

/** How long a list waits for a node (a node busy longer than this is left out of that answer): the workers' bound. */
export const PEER_TIMEOUT_MS = 1000;

/** Another node's figures for /api/nodes, read in its own process. */
export interface NodeFigures {
  readonly record: Readonly<Record<string, unknown>>;
  /** With its `ip`: each node has its own address (src/http/peer-nodes.ts, PeerListener). */
  readonly listeners: ReadonlyArray<PeerListener>;
}

export type SpreadQuery =
  | { readonly topic: "records"; readonly query: PeerQuery }
  | { readonly topic: "figures" }
  | { readonly topic: "applied"; readonly revision: number }
  | { readonly topic: "mqtt-claim"; readonly claim: ClientIdClaim }
  | { readonly topic: "mqtt-take-over"; readonly claim: ClientIdClaim };

export interface SpreadAnswers {
  /** This node's figures (its broker running), or null while it starts. */
  figures(): NodeFigures | null;
  /** Resolves once this node applied the definitions log up to `revision`. */
  applied(revision: number): Promise<void>;
  /** Resolves once every other node applied the definition changes this node made so far. */
  followed(): Promise<void>;
}

/** How long a CONNECT waits for a node to close an earlier holder of its client id (the workers' bound). */
const TAKE_OVER_TIMEOUT_MS = 5_000;

export class SpreadPeers implements PeerRecords, ClientIdPeers {
  private answer: ((q: PeerQuery) => unknown) | null = null;
  private claimHandler: ((claim: ClientIdClaim) => void) | null = null;

  constructor(
    private readonly me: string,
    /** The links this node holds to the other members now (up). */
    private readonly links: () => ReadonlyMap<string, LeaderLink>,
    private readonly answers: SpreadAnswers,
    private readonly timeoutMs = PEER_TIMEOUT_MS,
  ) {}

  serve(answer: (q: PeerQuery) => unknown): void {
    this.answer = answer;
  }

  async gather(q: PeerQuery): Promise<unknown[]> {
    const asked = [...this.links().values()].map((link) => this.ask(link, { topic: "records", query: q }, this.timeoutMs));
    const out: unknown[] = [];
    for (const s of await Promise.allSettled(asked)) if (s.status === "fulfilled") out.push(s.value);
    return out;
  }

  claimed(claim: ClientIdClaim): void {
    for (const link of this.links().values()) this.ask(link, { topic: "mqtt-claim", claim }, this.timeoutMs).catch(() => undefined);
  }

  onClaimed(handler: (claim: ClientIdClaim) => void): void {
    this.claimHandler = handler;
  }

  takeOver(claim: ClientIdClaim): Promise<void> {
    // A node that is down, not linked or silent is not waited for: its connections are not reachable through it either.
    const asked = [...this.links().values()].map((link) => this.ask(link, { topic: "mqtt-take-over", claim }, TAKE_OVER_TIMEOUT_MS));
    return Promise.allSettled(asked).then(() => undefined);
  }

  /** Every linked node's figures, by node name (a node that did not answer in time is absent). */
  async figures(): Promise<Map<string, NodeFigures>> {
    const links = [...this.links()];
    const settled = await Promise.allSettled(links.map(([, link]) => this.ask(link, { topic: "figures" }, this.timeoutMs)));
    const out = new Map<string, NodeFigures>();
    settled.forEach((s, i) => {
      if (s.status === "fulfilled" && s.value !== null && typeof s.value === "object") out.set(links[i]![0], s.value as NodeFigures);
    });
    return out;
  }

  /** Resolves once every linked node applied the log up to `revision`, or after `timeoutMs` for those that did not. */
  async allApplied(revision: number, timeoutMs: number): Promise<void> {
    await Promise.allSettled([...this.links().values()].map((link) => this.ask(link, { topic: "applied", revision }, timeoutMs)));
  }

  /** The answer to a peer's query (the link server's NodeQueryAnswerer). */
  answerQuery(query: unknown, peer: string): unknown {
    const q = query as SpreadQuery;
    switch (q.topic) {
      case "records":
        if (this.answer === null) throw new Error(`${this.me}: its management API is not running`);
        return this.answer(q.query);
      case "figures":
        return this.answers.figures();
      case "applied":
        return this.answers.applied(q.revision);
      case "mqtt-claim":
        this.claimHandler?.(q.claim);
        return null;
      case "mqtt-take-over":
        this.claimHandler?.(q.claim);
        // The close's changes (its exclusive queues deleted) come from its socket's close, a turn later.
        return new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.answers.followed()).then(() => null);
      default:
        throw new Error(`${this.me}: unknown node query from ${peer}`);
    }
  }

  private ask(link: LeaderLink, q: SpreadQuery, ms: number): Promise<unknown> {
    return withTimeout(link.nodeQuery(q), ms, `node ${link.node}'s answer`);
  }
}
