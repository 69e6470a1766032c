import type { ForwardedCertificate } from "../auth/forwarded-certificate.js";
import { VERSION } from "./product.js";

/** What a node runs, as it registered it: Coney's version and Node.js's (`coneyctl cluster_status`'s Versions). */
export interface NodeVersion {
  readonly coney: string;
  readonly node: string;
}

/** This process's. */
export const ownVersion = (): NodeVersion => ({ coney: VERSION, node: process.versions.node });

/** What the management API shows and does of a cluster (/api/nodes, forgetting a node): every known node and its role. */
export interface ClusterMember {
  readonly name: string;
  readonly running: boolean;
  readonly leader: boolean;
  readonly inSync: boolean;
  /** Where stream clients reach this node (its advertised stream host and port); null: no stream port. */
  readonly stream: { readonly host: string; readonly port: number; readonly tlsPort: number | null } | null;
  /** What it runs, as it registered (absent: registered by a node of an earlier version). */
  readonly version?: NodeVersion;
}

/** Why a node was not forgotten, or that it was. */
export type ForgetOutcome = "forgotten" | "unknown" | "running" | "self";

export interface ClusterView {
  members(): ClusterMember[];
  /** Removes a node that is gone for good from the known nodes (and the in-sync set); only the leader does. */
  forget(node: string): Promise<ForgetOutcome>;
  /** The certificate login a follower vouched for with the cluster's secret (auth/forwarded-certificate.ts); null when the proof does not match. */
  certificateVouchedFor?(data: Buffer | null): ForwardedCertificate | null;
}
