/** Queue commands with rabbitmqctl 3.10's names and texts: list_queues, purge_queue, delete_queue. */
import type { CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { listCommand } from "../list-command.js";
import { fields, type ColumnTable, type Item } from "../list-columns.js";
import { reasonOf } from "../management-api.js";
import { ManagementClient } from "../management-client.js";
import { listInVhost } from "./lookups.js";

const path = ManagementClient.path;

/**
 * The queue info keys of rabbitmqctl that the management API's queue record answers, and Coney's
 * `group` (its queue group) and `node` (where it leads: under `--workers N` or in a spread cluster,
 * the worker or node; rabbitmqctl shows that through `pid`, an Erlang process id Coney has not).
 * `leader`, `members` and `online` are a quorum queue's, empty for a classic one as in RabbitMQ 3.10.
 */
const QUEUE_COLUMNS: ColumnTable = fields(
  "name", "durable", "auto_delete", "arguments", "policy", "operator_policy", "effective_policy_definition",
  "exclusive", "exclusive_consumer_tag", "messages_ready", "messages_unacknowledged", "messages",
  "message_bytes", "message_bytes_ready", "message_bytes_unacknowledged", "consumers",
  "consumer_utilisation", "consumer_capacity", "memory", "state", "type", "group", "node", "leader", "members", "online",
);

/** rabbitmqctl shows its timeout in seconds with a decimal ("Timeout: 60.0 seconds ..."). */
function timeoutText(opts: Record<string, unknown>): string {
  const seconds = opts["timeout"] === undefined ? 60 : Number(opts["timeout"]);
  return Number.isInteger(seconds) ? seconds.toFixed(1) : String(seconds);
}

const listQueues = listCommand({
  name: "list_queues",
  usage: "list_queues [--vhost <vhost>] [--no-table-headers] [<column>, ...]",
  description: "Lists queues and their properties",
  section: "queues",
  columns: QUEUE_COLUMNS,
  defaults: ["name", "messages"],
  banner: ({ vhost, opts }) => [`Timeout: ${timeoutText(opts)} seconds ...`, `Listing queues for vhost ${vhost} ...`],
  fetch: (ctx) => listInVhost(ctx, "queues"),
});

const purgeQueue: CommandSpec = {
  name: "purge_queue",
  usage: "purge_queue <queue>",
  description: "Purges a queue (removes all messages in it)",
  section: "queues",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args, vhost }) => `Purging queue '${args[0]}' in vhost '${vhost}' ...`,
  async run({ api, out, args, vhost }) {
    const res = await api.send("DELETE", path("queues", vhost, args[0]!, "contents"));
    if (res.status === 404) throw new CliError(EXIT.unavailable, `Queue '${args[0]}' in vhost '${vhost}' was not found`);
    api.expectOk(res);
    out.done();
  },
};

const deleteQueue: CommandSpec = {
  name: "delete_queue",
  usage: "delete_queue <queue_name> [--if-empty|-e] [--if-unused|-u]",
  description: "Deletes a queue",
  section: "queues",
  minArgs: 1,
  maxArgs: 1,
  options: (cmd) => cmd.option("-e, --if-empty").option("-u, --if-unused"),
  validate: (args) => (args[0] === "" ? { exitCode: EXIT.dataErr, message: "Bad argument: queue name cannot be an empty string" } : null),
  banner: ({ args, vhost, opts }) => {
    const conditions = [...(opts["ifEmpty"] ? ["if queue is empty "] : []), ...(opts["ifUnused"] ? ["if queue is unused "] : [])];
    return `Deleting queue '${args[0]}' on vhost '${vhost}' ${conditions.join("and ")}...`;
  },
  async run({ api, out, args, vhost, opts }) {
    const queuePath = path("queues", vhost, args[0]!);
    const found = await api.send("GET", queuePath);
    if (found.status === 404) throw new CliError(EXIT.usage, "Queue not found");
    const ready = (api.expectOk(found).body as Item)["messages_ready"];
    const query = [...(opts["ifEmpty"] ? ["if-empty=true"] : []), ...(opts["ifUnused"] ? ["if-unused=true"] : [])].join("&");
    const res = await api.send("DELETE", query ? `${queuePath}?${query}` : queuePath);
    if (res.status === 404) throw new CliError(EXIT.usage, "Queue not found");
    if (res.status === 400 && reasonOf(res).endsWith("not empty")) throw new CliError(EXIT.usage, "Queue is not empty");
    if (res.status === 400 && reasonOf(res).endsWith("in use")) throw new CliError(EXIT.usage, "Queue is in use");
    api.expectOk(res);
    out.message(`Queue was successfully deleted with ${String(ready)} ready messages`);
  },
};

export const QUEUE_COMMANDS: readonly CommandSpec[] = [listQueues, purgeQueue, deleteQueue];
