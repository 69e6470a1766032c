/**
 * A worker's node name under `coney --workers N`, plain or as spread-cluster nodes: `-w<i>` added
 * before the `@host` of the configured name (`coney@db1` → `coney-w0@db1`, `coney-w1@db1`), at the
 * end of a name without one — so tools that split `name@host` (rabbitmqctl's habit, the management
 * UI, Prometheus labels) get the real host. For a spread node the name is its identity in etcd
 * (its member key, its store's keys), so a restarted worker is the same node; two machines need
 * different configured names, as two spread nodes always do. The data dirs keep their own names
 * (`nodes/w<i>`, `spread/w<i>`): a node name is never written into them, so a data dir of the
 * earlier `<name>/w<i>` form starts unchanged.
 */
import { workerName } from "./workers-file.js";

export function workerNodeName(nodeName: string, index: number): string {
  const at = nodeName.indexOf("@");
  const suffix = `-${workerName(index)}`;
  return at < 0 ? `${nodeName}${suffix}` : `${nodeName.slice(0, at)}${suffix}${nodeName.slice(at)}`;
}
