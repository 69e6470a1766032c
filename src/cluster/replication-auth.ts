/**
 * The replication port's mutual authentication: the shared-secret proofs now live in
 * auth/shared-secret-proof.ts, because the inter-node link (src/node-link, floor 3) proves the same
 * secret the same way and may not import the cluster (floor 5). Re-exported here for the cluster's
 * modules, beside the cluster secret itself (created once in etcd).
 */
import { newSecret } from "../auth/shared-secret-proof.js";
import { withTimeout, type ClusterKeys, type EtcdSession } from "./etcd-session.js";

export * from "../auth/shared-secret-proof.js";

/** The cluster's replication secret: the first node to start creates it (one transaction), every node reads it. */
export async function clusterSecret(session: EtcdSession, keys: ClusterKeys): Promise<Buffer> {
  const c = session.client;
  await withTimeout(c.if(keys.secret, "Create", "==", 0).then(c.put(keys.secret).value(newSecret().toString("base64"))).commit(), session.callTimeout, "create the cluster secret");
  const value = await withTimeout(c.get(keys.secret).string(), session.callTimeout, "read the cluster secret");
  if (!value) throw new Error("etcd holds no cluster secret");
  return Buffer.from(value, "base64");
}
