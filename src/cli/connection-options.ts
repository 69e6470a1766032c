/**
 * Where the broker's management API is and who we are: flags win over CONEY_* environment
 * variables, which win over the defaults (a local broker, guest/guest). rabbitmqctl's
 * `-n rabbit@host` is honoured as a host flag (--host wins over it), so pasted runbook lines work.
 */
import { readFileSync } from "node:fs";

export interface ConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly tls: boolean;
  /** PEM CA bundle to verify the broker's certificate with (instead of the system's). */
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  /** Skip certificate verification (like curl --insecure). */
  readonly insecure: boolean;
  readonly timeoutMs: number;
}

export interface ConnectionFlags {
  host?: string;
  port?: string;
  username?: string;
  password?: string;
  node?: string;
  useTls?: boolean;
  cacertfile?: string;
  certfile?: string;
  keyfile?: string;
  insecure?: boolean;
  timeout?: string;
}

export const DEFAULT_PORT = 15672;

export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): ConnectionOptions {
  const nodeHost = flags.node?.includes("@") ? flags.node.slice(flags.node.indexOf("@") + 1) : undefined;
  const host = flags.host ?? nodeHost ?? env["CONEY_HOST"] ?? "127.0.0.1";
  const portText = flags.port ?? env["CONEY_PORT"] ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`invalid port '${portText}'`);
  const timeoutSec = flags.timeout === undefined ? 60 : Number(flags.timeout);
  if (!Number.isFinite(timeoutSec) || timeoutSec <= 0) throw new RangeError(`invalid timeout '${flags.timeout}'`);
  const tls = flags.useTls === true || flags.cacertfile !== undefined || env["CONEY_USE_TLS"] === "true";
  return {
    host,
    port,
    username: flags.username ?? env["CONEY_USERNAME"] ?? "guest",
    password: flags.password ?? env["CONEY_PASSWORD"] ?? "guest",
    tls,
    ...(flags.cacertfile !== undefined ? { ca: readFileSync(flags.cacertfile, "utf8") } : {}),
    ...(flags.certfile !== undefined ? { cert: readFileSync(flags.certfile, "utf8") } : {}),
    ...(flags.keyfile !== undefined ? { key: readFileSync(flags.keyfile, "utf8") } : {}),
    insecure: flags.insecure === true,
    timeoutMs: timeoutSec * 1000,
  };
}
