/** Policy administration with rabbitmqctl's names and texts: set_policy, clear_policy, list_policies. */
import type { CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { reasonOf } from "../management-api.js";
import { listCommand } from "../list-command.js";
import { fields } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";
import { listInVhost, noSuchVhost, requireVhost } from "./lookups.js";

const path = ManagementClient.path;

const setPolicy: CommandSpec = {
  name: "set_policy",
  usage: "set_policy [--vhost <vhost>] [--priority <priority>] [--apply-to <apply-to>] <name> <pattern> <definition>",
  description: "Sets or updates a policy",
  section: "policies",
  minArgs: 3,
  maxArgs: 3,
  options: (cmd) => cmd.option("--priority <priority>").option("--apply-to <apply-to>"),
  validate: (_args, opts) =>
    opts["priority"] !== undefined && !/^-?\d+$/.test(String(opts["priority"]))
      ? { exitCode: EXIT.usage, message: `Invalid options for this command:\npriority : ${String(opts["priority"])}` }
      : null,
  banner: ({ args, vhost, opts }) =>
    `Setting policy "${args[0]}" for pattern "${args[1]}" to "${args[2]}" with priority "${String(opts["priority"] ?? 0)}" for vhost "${vhost}" ...`,
  async run({ api, out, args, vhost, opts }) {
    const [name, pattern, text] = args as [string, string, string];
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (e) {
      throw new CliError(EXIT.unavailable, `JSON decoding error: ${(e as Error).message}`);
    }
    const body = { pattern, definition, priority: Number(opts["priority"] ?? 0), "apply-to": String(opts["applyTo"] ?? "all") };
    const res = await api.send("PUT", path("policies", vhost, name), { body });
    if (res.status === 404) throw noSuchVhost(vhost, EXIT.unavailable);
    if (res.status === 400) throw new CliError(EXIT.unavailable, reasonOf(res));
    api.expectOk(res);
    out.done();
  },
};

const clearPolicy: CommandSpec = {
  name: "clear_policy",
  usage: "clear_policy [--vhost <vhost>] <name>",
  description: "Clears (removes) a policy",
  section: "policies",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args, vhost }) => `Clearing policy "${args[0]}" on vhost "${vhost}" ...`,
  async run({ api, out, args, vhost }) {
    const res = await api.send("DELETE", path("policies", vhost, args[0]!));
    if (res.status === 404) {
      await requireVhost(api, vhost, EXIT.unavailable);
      throw new CliError(EXIT.unavailable, "Parameter does not exist");
    }
    api.expectOk(res);
    out.done();
  },
};

const listPolicies = listCommand({
  name: "list_policies",
  usage: "list_policies [--vhost <vhost>] [--no-table-headers]",
  description: "Lists all policies in a virtual host",
  section: "policies",
  // A definition is a non-empty JSON object: the table shows it as that JSON document.
  columns: fields("vhost", "name", "pattern", "apply-to", "definition", "priority"),
  fixedColumns: true,
  banner: ({ vhost }) => `Listing policies for vhost "${vhost}" ...`,
  fetch: (ctx) => listInVhost(ctx, "policies"),
});

export const POLICY_COMMANDS: readonly CommandSpec[] = [setPolicy, clearPolicy, listPolicies];
