/**
 * Usage and help text in rabbitmqctl's layout: the "Usage" block under an argument validation
 * error, `help <command>`, and the command list of `help`.
 */
import type { CommandSpec, HelpSection } from "./command-spec.js";

export const TOOL = "coneyctl";
const GENERAL = "[--host <host>] [--port <port>] [--username <username>] [--password <password>] [--quiet]";

export function baseUsage(spec: CommandSpec): string {
  return `\nUsage\n\n${TOOL} ${GENERAL} ${spec.usage}`;
}

export const GENERAL_OPTIONS: readonly (readonly [string, string])[] = [
  ["--host <host>", "management API host (CONEY_HOST, default 127.0.0.1; -n rabbit@<host> also sets it)"],
  ["--port <port>", "management API port (CONEY_PORT, default 15672)"],
  ["--username <username>", "user to authenticate as (CONEY_USERNAME, default guest)"],
  ["--password <password>", "its password (CONEY_PASSWORD, default guest)"],
  ["--use-tls", "connect with HTTPS"],
  ["--cacertfile <file>", "PEM CA certificates to verify the broker with (implies --use-tls)"],
  ["--certfile <file>, --keyfile <file>", "client certificate and key for HTTPS"],
  ["--insecure", "do not verify the broker's certificate"],
  ["-p, --vhost <vhost>", "virtual host (default /)"],
  ["-q, --quiet", "suppress informational messages (banners)"],
  ["-s, --silent", "suppress informational messages and table headers"],
  ["--no-table-headers", "do not print table headers"],
  ["--formatter <table|json>", "output format (json for scripts)"],
  ["-t, --timeout <seconds>", "how long to wait for the broker (default 60)"],
];

export function commandUsage(spec: CommandSpec): string {
  const options = GENERAL_OPTIONS.map(([o, d]) => `${o}\t${d}`).join("\n");
  return `${baseUsage(spec)}\n\n${spec.description}\n\nGeneral Options\n\n${options}\n`;
}

const SECTION_ORDER: readonly HelpSection[] = ["help", "node", "users", "access control", "virtual hosts", "queues", "monitoring", "policies", "definitions"];

export function allUsage(specs: readonly CommandSpec[]): string {
  const width = Math.max(...specs.map((s) => s.name.length)) + 3;
  let text = `\nUsage\n\n${TOOL} ${GENERAL} <command> [<command options>]\n\nAvailable commands:\n`;
  for (const section of SECTION_ORDER) {
    const inSection = specs.filter((s) => s.section === section).sort((a, b) => a.name.localeCompare(b.name));
    if (inSection.length === 0) continue;
    text += `\n${section[0]!.toUpperCase()}${section.slice(1)}:\n\n`;
    for (const s of inSection) text += `   ${s.name.padEnd(width)}${s.description}\n`;
  }
  text += `\nUse '${TOOL} help <command>' to learn more about a specific command\n`;
  return text;
}
