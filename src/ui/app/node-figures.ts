/** The gauges of a node record (GET /api/nodes, /api/overview's node): shown by the overview and the node page. */
export interface NodeFigures {
  name: string;
  uptime: number;
  processors: number;
  mem_used: number;
  mem_limit: number;
  mem_alarm: boolean;
  disk_free: number;
  disk_free_limit: number;
  disk_free_alarm: boolean;
  fd_used: number;
  fd_total: number;
  sockets_used: number;
  sockets_total: number;
  proc_used: number;
  proc_total: number;
}
