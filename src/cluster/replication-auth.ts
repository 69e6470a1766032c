/**
 * The replication port's mutual authentication: the shared-secret proofs now live in
 * auth/shared-secret-proof.ts, because the inter-node link (src/node-link, floor 3) proves the same
 * secret the same way and may not import the cluster (floor 5). Re-exported here for the cluster's
 * modules.
 */
export * from "../auth/shared-secret-proof.js";
