/** Virtual host administration with rabbitmqctl's names and texts: list_vhosts, add_vhost, delete_vhost. */
import type { CommandSpec } from "../command-spec.js";
import { EXIT } from "../exit-codes.js";
import { listCommand } from "../list-command.js";
import { fields, type ColumnTable, type Item } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";
import { noSuchVhost } from "./lookups.js";

const path = ManagementClient.path;

const VHOST_COLUMNS: ColumnTable = {
  ...fields("name", "description", "tags", "default_queue_type", "tracing", "metadata"),
  cluster_state: (v) => Object.entries((v["cluster_state"] as Record<string, string> | undefined) ?? {}).map(([node, state]) => `{${node},${state}}`),
  protected_from_deletion: () => false,
};

const listVhosts = listCommand({
  name: "list_vhosts",
  usage: "list_vhosts [--no-table-headers] [<column> ...]",
  description: "Lists virtual hosts",
  section: "virtual hosts",
  columns: VHOST_COLUMNS,
  defaults: ["name"],
  banner: () => "Listing vhosts ...",
  fetch: ({ api }) => api.get<Item[]>(path("vhosts")),
});

const addVhost: CommandSpec = {
  name: "add_vhost",
  usage: 'add_vhost <vhost> [--description <description> --tags "<tag1>,<tag2>,<...>" --default-queue-type <quorum|classic|stream>]',
  description: "Creates a virtual host",
  section: "virtual hosts",
  minArgs: 1,
  maxArgs: 1,
  options: (cmd) => cmd.option("--description <description>").option("--tags <tags>").option("--default-queue-type <type>"),
  validate: (_args, opts) => {
    const dqt = opts["defaultQueueType"];
    if (dqt !== undefined && !["classic", "quorum", "stream"].includes(String(dqt))) {
      return { exitCode: EXIT.usage, message: `Unsupported default queue type: ${String(dqt)}. Supported types: classic, quorum, stream` };
    }
    return null;
  },
  banner: ({ args }) => `Adding vhost "${args[0]}" ...`,
  async run({ api, out, args, opts }) {
    const body: Record<string, unknown> = {};
    if (opts["description"] !== undefined) body["description"] = opts["description"];
    if (opts["tags"] !== undefined) body["tags"] = opts["tags"];
    if (opts["defaultQueueType"] !== undefined) body["default_queue_type"] = opts["defaultQueueType"];
    api.expectOk(await api.send("PUT", path("vhosts", args[0]!), { body }));
    out.done();
  },
};

const deleteVhost: CommandSpec = {
  name: "delete_vhost",
  usage: "delete_vhost <vhost>",
  description: "Deletes a virtual host",
  section: "virtual hosts",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args }) => `Deleting vhost "${args[0]}" ...`,
  async run({ api, out, args }) {
    const res = await api.send("DELETE", path("vhosts", args[0]!));
    if (res.status === 404) throw noSuchVhost(args[0]!, EXIT.unavailable);
    api.expectOk(res);
    out.done();
  },
};

export const VHOST_COMMANDS: readonly CommandSpec[] = [listVhosts, addVhost, deleteVhost];
