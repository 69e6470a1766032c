/**
 * The management API's records of the other workers of `coney --workers N` (docs/CLUSTERING.md,
 * "Built: one broker's lists from any worker"): connections, channels and consumers live in the
 * worker that accepted the connection, so a list of the whole broker is gathered from every
 * worker, each answering from its own broker (local-records.ts), and merged before paging,
 * sorting and filtering. src/workers carries the queries (IPC); the API never imports it.
 */

/** Whose connections a list shows: null = every user's (a monitor), else this user's own only. */
export type RecordsUser = string | null;

/** RabbitMQ's chart parameters (`<group>_age`, `<group>_incr`) of the request, so each worker renders the samples asked for. */
export type ChartQuery = Readonly<Record<string, string>>;

export type PeerQuery =
  | { readonly kind: "connections" | "channels" | "consumers"; readonly user: RecordsUser; readonly chart?: ChartQuery }
  /** rabbitmq_stream_management's lists (stream-records.ts). */
  | { readonly kind: "stream-connections" | "stream-publishers" | "stream-consumers"; readonly user: RecordsUser; readonly chart?: ChartQuery }
  /** /api/overview's counted figures for a caller: a monitor's, or a user's over its vhosts. */
  | { readonly kind: "overview"; readonly monitor: boolean; readonly user: string; readonly vhosts: readonly string[]; readonly chart?: ChartQuery }
  /** The message_stats of the exchanges of these vhosts that messages passed through on that worker. */
  | { readonly kind: "exchange-stats"; readonly vhosts: readonly string[]; readonly chart?: ChartQuery }
  /** The rates of the queues of these vhosts (only `name`, when given) that worker leads (leader-queue-figures.ts). */
  | { readonly kind: "queue-figures"; readonly vhosts: readonly string[]; readonly name?: string; readonly chart?: ChartQuery }
  /** This node's own Prometheus exposition (its /metrics or /metrics/per-object body), for another node's aggregate (src/metrics/cluster-scrape.ts). */
  | { readonly kind: "metrics"; readonly endpoint: "aggregated" | "per-object" }
  /** Close a connection by name, or every connection of a user: the answer is how many were closed. */
  | { readonly kind: "close"; readonly name?: string; readonly user?: string; readonly reason: string };

export interface PeerRecords {
  /** Every other worker's answer to `q`; a worker that is down or does not answer in time is left out. */
  gather(q: PeerQuery): Promise<unknown[]>;
  /** The answer this worker gives the others (set once its API runs; until then it answers with an error). */
  serve(answer: (q: PeerQuery) => unknown): void;
}
