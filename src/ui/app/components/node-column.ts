/**
 * The "Node" column of the queues and connections lists, shown as RabbitMQ's UI shows it: only
 * when the broker has more than one node (a cluster, or the workers of `coney --workers N`), where
 * it says which node leads a queue or holds a connection. The node list is a monitor's to read
 * (GET /api/nodes); for other users the column stays hidden, as in RabbitMQ.
 */
import { hasTag, useApp } from "../app-context.js";
import { useLive } from "../live.js";
import type { Column } from "./list-view.js";

/** Whether the broker has more than one node (read once per page, not polled). */
export function useManyNodes(): boolean {
  const { api, tags } = useApp();
  const monitor = hasTag(tags, "monitoring");
  const nodes = useLive(() => (monitor ? api.get<Array<{ name: string }>>("/nodes") : Promise.resolve([])), [monitor], { live: false });
  return (nodes.data?.length ?? 0) > 1;
}

/** `columns` with a Node column after the column keyed `after` (when `shown`). */
export function withNodeColumn<T>(columns: readonly Column<T>[], shown: boolean, after: string): readonly Column<T>[] {
  if (!shown) return columns;
  const at = columns.findIndex((c) => c.key === after) + 1;
  return [...columns.slice(0, at), { key: "node", label: "Node" }, ...columns.slice(at)];
}
