/**
 * The aggregate scrape's reach to the other nodes (cluster-scrape.ts): the same seam the
 * management API's whole-broker lists use (src/http/peer-records.ts's PeerRecords, over IPC under
 * `coney --workers N`, over the node links in a spread cluster), with one more query, `metrics`,
 * answered here from this node's own exposition. It sits between the seam and the API: the API
 * still answers every other query (serve), and a node whose API is not running still answers
 * `metrics` (and the reverse), each with its own error when its side is not there.
 *
 * Bounded: a node that does not answer within the seam's timeout (1 s, workers and spread alike)
 * is left out of that gathering, as from the overview.
 */
import type { PeerQuery, PeerRecords } from "../http/peer-records.js";

export type PeerEndpoint = "aggregated" | "per-object";

/** One node's exposition, as it rendered it. */
export interface NodeAnswer {
  readonly node: string;
  readonly text: string;
}

/** What the aggregate needs of the other nodes. */
export interface ClusterFigures {
  /** The other nodes' own expositions of `endpoint`, from those that answered in time. */
  gatherMetrics(endpoint: PeerEndpoint): Promise<NodeAnswer[]>;
  /** Every node of the broker by name, this one included. */
  nodes(): Promise<string[]>;
}

/** How long the aggregate waits for the node list (the list's own figures wait 1 s per node, in parallel). */
const NODES_TIMEOUT_MS = 1500;

export class PeerMetrics implements PeerRecords, ClusterFigures {
  private apiAnswer: ((q: PeerQuery) => unknown) | null = null;
  /** This node's exposition of an endpoint, set while its Prometheus listener runs (metrics-listener.ts). */
  own: ((endpoint: PeerEndpoint) => string) | null = null;

  constructor(
    private readonly inner: PeerRecords,
    private readonly self: string,
    private readonly listNodes: () => Promise<readonly string[]>,
  ) {
    inner.serve((q) => this.answer(q));
  }

  serve(answer: (q: PeerQuery) => unknown): void {
    this.apiAnswer = answer;
  }

  gather(q: PeerQuery): Promise<unknown[]> {
    return this.inner.gather(q);
  }

  async gatherMetrics(endpoint: PeerEndpoint): Promise<NodeAnswer[]> {
    const out: NodeAnswer[] = [];
    for (const a of await this.inner.gather({ kind: "metrics", endpoint })) {
      if (isNodeAnswer(a)) out.push(a);
    }
    return out;
  }

  async nodes(): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<readonly string[]>((resolve) => (timer = setTimeout(() => resolve([]), NODES_TIMEOUT_MS)));
    try {
      return [...(await Promise.race([this.listNodes(), late]))];
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  }

  private answer(q: PeerQuery): unknown {
    if (q.kind === "metrics") {
      if (this.own === null) throw new Error(`${this.self}: its Prometheus listener is not running`);
      const answer: NodeAnswer = { node: this.self, text: this.own(q.endpoint) };
      return answer;
    }
    if (this.apiAnswer === null) throw new Error(`${this.self}: its management API is not running`);
    return this.apiAnswer(q);
  }
}

function isNodeAnswer(a: unknown): a is NodeAnswer {
  return typeof a === "object" && a !== null && typeof (a as NodeAnswer).node === "string" && typeof (a as NodeAnswer).text === "string";
}
