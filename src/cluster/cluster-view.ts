/** What the management API shows of a cluster (/api/nodes): every known node and its role. */
export interface ClusterMember {
  readonly name: string;
  readonly running: boolean;
  readonly leader: boolean;
  readonly inSync: boolean;
}

export interface ClusterView {
  members(): ClusterMember[];
}
