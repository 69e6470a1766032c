/**
 * A listener that cannot bind stops the start with one line (the address, the setting that chose
 * the port, what to do), not a stack trace. A newcomer's first `npm start` beside RabbitMQ meets
 * it at once: RabbitMQ holds 5672, 15672, 1883, 61613 and 25672 (its inter-node port).
 */
import type { ConeyConfig } from "../config/config.js";
import { portSettingOf } from "../config/load-config.js";

const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: "the address is already in use (another Coney, RabbitMQ or another program holds it)",
  EACCES: "permission denied (a port below 1024 needs root or CAP_NET_BIND_SERVICE)",
  EADDRNOTAVAIL: "the address is not one of this machine's (see --bind)",
};

/** The line for a bind error (`code` and `port` set by Node's net module), or null for any other error. */
export function bindFailureText(err: unknown, config: ConeyConfig): string | null {
  if (err === null || typeof err !== "object") return null;
  const e = err as { code?: unknown; port?: unknown; address?: unknown };
  const reason = typeof e.code === "string" ? REASONS[e.code] : undefined;
  if (reason === undefined || typeof e.port !== "number") return null;
  const host = typeof e.address === "string" && e.address !== "" && e.address !== "::" ? e.address : config.bind === "" ? "every interface" : config.bind;
  const setting = portSettingOf(config, e.port);
  const choose = setting === null ? "choose another port" : `choose another port with ${setting}`;
  return `cannot listen on port ${e.port} (${host})${setting === null ? "" : `, set by ${setting}`}: ${reason}; stop what holds it or ${choose}`;
}
