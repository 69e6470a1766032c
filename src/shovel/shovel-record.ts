/**
 * A shovel's status as RabbitMQ 3.10's /api/shovels shows it: node, timestamp (the last state
 * change, local time "YYYY-MM-DD HH:MM:SS"), name, vhost, type dynamic, state; when running the
 * URIs in use (credentials removed), protocols and the source/destination it names; when
 * terminated the reason.
 */
import type { ShovelStatus } from "./shovels.js";

const pad = (n: number): string => String(n).padStart(2, "0");

function timestamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${d.getHours()}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function shovelRecord(s: ShovelStatus, node: string): Record<string, unknown> {
  const r: Record<string, unknown> = { node, timestamp: timestamp(s.since), name: s.name, vhost: s.vhost, type: "dynamic", state: s.state };
  if (s.state === "terminated") {
    r["reason"] = s.reason;
    return r;
  }
  if (s.state !== "running") return r;
  const c = s.config;
  r["src_uri"] = s.srcUri;
  r["src_protocol"] = "amqp091";
  r["dest_protocol"] = "amqp091";
  r["dest_uri"] = s.destUri;
  if (c.srcQueue !== null) r["src_queue"] = c.srcQueue;
  else {
    r["src_exchange"] = c.srcExchange;
    r["src_exchange_key"] = c.srcExchangeKey;
  }
  if (c.destExchange !== null) r["dest_exchange"] = c.destExchange;
  if (c.destExchangeKey !== null) r["dest_exchange_key"] = c.destExchangeKey;
  if (c.destQueue !== null) r["dest_queue"] = c.destQueue;
  return r;
}
