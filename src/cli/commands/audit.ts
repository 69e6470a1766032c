/**
 * list_audit: Coney's audit trail (GET /api/coney/audit), newest first, as a table. Options
 * narrow it (exact matches) and --limit caps it; columns may be chosen as for the other list_*
 * commands (before, after, error and auth are there besides the defaults).
 */
import type { Command } from "commander";
import type { CommandSpec } from "../command-spec.js";
import { listCommand } from "../list-command.js";
import type { Item } from "../list-columns.js";

const FILTERS = ["user", "action", "object", "source", "result", "since", "until"] as const;

const json = (v: unknown): unknown => (v === undefined ? "" : typeof v === "object" && v !== null ? JSON.stringify(v) : v);

const list = listCommand({
  name: "list_audit",
  usage: "list_audit [--user <user>] [--action <action>] [--object <name>] [--source http|cli|amqp|mqtt|internal] [--result ok|error] [--since <time>] [--until <time>] [--limit <n>] [<column> ...]",
  description: "Lists Coney's audit trail of configuration changes, newest first",
  section: "monitoring",
  columns: {
    id: (e) => e["id"],
    at: (e) => e["at"],
    user: (e) => e["user"],
    auth: (e) => e["auth"],
    source: (e) => e["source"],
    peer: (e) => e["peer"],
    node: (e) => e["node"],
    action: (e) => e["action"],
    vhost: (e) => e["vhost"] ?? "",
    name: (e) => e["name"],
    result: (e) => e["result"],
    before: (e) => json(e["before"]),
    after: (e) => json(e["after"]),
    error: (e) => json(e["error"]),
  },
  defaults: ["id", "at", "user", "source", "peer", "action", "vhost", "name", "result"],
  banner: () => "Listing audit entries ...",
  fetch: async ({ api, opts }) => {
    const q = new URLSearchParams({ page: "1", page_size: String(opts["limit"] ?? 100) });
    for (const f of FILTERS) if (typeof opts[f] === "string") q.set(f, opts[f]);
    const page = await api.get<{ items: Item[] }>(`/api/coney/audit?${q.toString()}`);
    return page.items;
  },
});

export const AUDIT_COMMANDS: readonly CommandSpec[] = [
  {
    ...list,
    options: (cmd: Command) => {
      for (const f of FILTERS) cmd.option(`--${f} <value>`, `only entries whose ${f} is this`);
      cmd.option("--limit <n>", "at most this many entries (1..500)", "100");
    },
  },
];
