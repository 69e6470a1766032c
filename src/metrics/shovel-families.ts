/**
 * Shovel figures (src/shovel). RabbitMQ 3.10's Prometheus plugin has none, so they carry Coney's
 * prefix: `coney_shovel_state{vhost,shovel,state}` is 1 for the state a shovel is in and 0 for
 * the others (starting, running, terminated: alert on state="terminated" == 1), and
 * `coney_shovel_messages_transferred_total{vhost,shovel}` counts the messages it moved (settled
 * at the source) since it was defined or the node started. Read from the shovels' status at
 * scrape time; nothing is counted per message here.
 */
import type { ShovelStatus } from "../shovel/shovels.js";
import { labelPair, type Exposition } from "./exposition.js";

const STATES = ["starting", "running", "terminated"] as const;

export function writeShovels(out: Exposition, shovels: readonly ShovelStatus[]): void {
  if (shovels.length === 0) return;
  out.family("coney_shovel_state", "gauge", "1 for the state the dynamic shovel is in (starting, running, terminated), 0 for the others");
  for (const s of shovels) {
    const labels = `${labelPair("vhost", s.vhost)},${labelPair("shovel", s.name)}`;
    for (const state of STATES) out.sample("coney_shovel_state", `${labels},${labelPair("state", state)}`, s.state === state ? 1 : 0);
  }
  out.family("coney_shovel_messages_transferred_total", "counter", "Messages the dynamic shovel moved (settled at its source)");
  for (const s of shovels) out.sample("coney_shovel_messages_transferred_total", `${labelPair("vhost", s.vhost)},${labelPair("shovel", s.name)}`, s.transferred);
}
