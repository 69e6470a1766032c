/**
 * `coneyctl forget_cluster_node` (docs/CLUSTERING.md): a node gone for good leaves the known
 * nodes, so it no longer counts in the default min-in-sync-replicas, and the in-sync set, in one
 * etcd transaction guarded by the asking node's leadership (the leader key's create revision is
 * its epoch). A running node is refused (it would re-register at once); one that starts again
 * later simply registers again.
 */
import type { IOperation } from "etcd3";
import type { ForgetOutcome } from "../broker/index.js";
import type { ClusterState } from "./cluster-state.js";
import { withTimeout, type ClusterKeys, type EtcdSession } from "./etcd-session.js";

export interface ForgettingLeader {
  readonly me: string;
  readonly session: EtcdSession;
  readonly keys: ClusterKeys;
  /** The leader key's create revision this node won with. */
  readonly epoch: number;
  readonly view: ClusterState;
}

/** The outcome, and for "forgotten" the view without the node; throws when this node no longer leads. */
export async function forgetNode(l: ForgettingLeader, node: string): Promise<{ outcome: ForgetOutcome; view: ClusterState }> {
  const view = l.view;
  if (node === l.me) return { outcome: "self", view };
  if (!view.known.includes(node)) return { outcome: "unknown", view };
  if (view.members.has(node)) return { outcome: "running", view };
  const c = l.session.client;
  const inSync = view.inSync;
  const ops: IOperation[] = [c.delete().key(l.keys.known(node))];
  if (inSync?.nodes.includes(node)) ops.push(c.put(l.keys.insync).value(JSON.stringify({ ...inSync, nodes: inSync.nodes.filter((n) => n !== node) })));
  const res = await withTimeout(c.if(l.keys.leader, "Create", "==", l.epoch).then(...ops).commit(), l.session.callTimeout, "forget a node");
  if (!res.succeeded) throw new Error("this node no longer leads the cluster");
  return { outcome: "forgotten", view: { ...view, known: view.known.filter((n) => n !== node) } };
}
