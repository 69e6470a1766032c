/** What the management API shows and does of a cluster (/api/nodes, forgetting a node): every known node and its role. */
export interface ClusterMember {
  readonly name: string;
  readonly running: boolean;
  readonly leader: boolean;
  readonly inSync: boolean;
  /** Where stream clients reach this node (its advertised stream host and port); null: no stream port. */
  readonly stream: { readonly host: string; readonly port: number; readonly tlsPort: number | null } | null;
}

/** Why a node was not forgotten, or that it was. */
export type ForgetOutcome = "forgotten" | "unknown" | "running" | "self";

export interface ClusterView {
  members(): ClusterMember[];
  /** Removes a node that is gone for good from the known nodes (and the in-sync set); only the leader does. */
  forget(node: string): Promise<ForgetOutcome>;
  /** The cluster's secret, with which followers vouch for their TLS clients' certificate logins (auth/forwarded-certificate.ts); empty until known. */
  readonly secret?: Buffer;
}
