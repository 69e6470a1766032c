/**
 * A cluster node's role (docs/CLUSTERING.md), under the coney_ prefix since RabbitMQ has no
 * single-leader clusters: whether this node leads, and whether etcd lists it as holding every
 * confirmed message. Written by the leader's endpoints and by a follower's (render.ts); a single
 * node writes neither.
 */
import type { Exposition } from "./exposition.js";

export interface ClusterRole {
  readonly leader: boolean;
  readonly inSync: boolean;
}

export function writeClusterRole(out: Exposition, role: ClusterRole): void {
  out.family("coney_cluster_leader", "gauge", "1 if this node is the cluster's leader (it runs every queue)");
  out.sample("coney_cluster_leader", "", role.leader ? 1 : 0);
  out.family("coney_cluster_in_sync", "gauge", "1 if this node is in the cluster's in-sync set (it holds every confirmed message)");
  out.sample("coney_cluster_in_sync", "", role.inSync ? 1 : 0);
}
