/** A node's resources against their limits and alarms (memory, disk, descriptors, sockets, event loop): the overview and the node page show the same table. */
import { fmtBytes, fmtNum } from "../format.js";
import { html } from "../html.js";
import type { NodeFigures } from "../node-figures.js";
import { KvTable, Usage } from "./kv.js";

export function NodeResources({ n }: { n: NodeFigures }) {
  return html`<${KvTable} label="Resources" rows=${[
    ["Memory", html`<${Usage} used=${n.mem_used} limit=${n.mem_limit} alarm=${n.mem_alarm} text=${`${fmtBytes(n.mem_used)} used, alarm at ${fmtBytes(n.mem_limit)}`} />`],
    // Disk space is a floor, not a ceiling: the bar is the alarm limit's share of the space still free (full at the alarm).
    ["Disk space", html`<${Usage} used=${n.disk_free_limit} limit=${Math.max(n.disk_free, n.disk_free_limit)} invert=${true} alarm=${n.disk_free_alarm} text=${`${fmtBytes(n.disk_free)} free, alarm below ${fmtBytes(n.disk_free_limit)}`} />`],
    ["File descriptors", html`<${Usage} used=${n.fd_used} limit=${n.fd_total} alarm=${false} text=${`${fmtNum(n.fd_used)} of ${fmtNum(n.fd_total)}`} />`],
    ["Sockets", html`<${Usage} used=${n.sockets_used} limit=${n.sockets_total} alarm=${false} text=${`${fmtNum(n.sockets_used)} of ${fmtNum(n.sockets_total)}`} />`],
    ["Event-loop resources", html`<${Usage} used=${n.proc_used} limit=${n.proc_total} alarm=${false} text=${`${fmtNum(n.proc_used)} of ${fmtNum(n.proc_total)}`} />`],
  ]} />`;
}
