/**
 * Topic permissions with rabbitmqctl's names, banners and columns: list_topic_permissions,
 * list_user_topic_permissions, set_topic_permissions, clear_topic_permissions.
 */
import type { CommandSpec } from "../command-spec.js";
import { ManagementClient } from "../management-client.js";
import { listCommand } from "../list-command.js";
import { fields } from "../list-columns.js";
import { explainClearRefusal, explainPermissionRefusal, listAt, listOfUser } from "./lookups.js";

const path = ManagementClient.path;

const listTopicPermissions = listCommand({
  name: "list_topic_permissions",
  usage: "list_topic_permissions [--vhost <vhost>] [--no-table-headers]",
  description: "Lists topic permissions in a virtual host",
  section: "access control",
  columns: fields("user", "exchange", "write", "read"),
  fixedColumns: true,
  banner: ({ vhost }) => `Listing topic permissions for vhost "${vhost}" ...`,
  fetch: (ctx) => listAt(ctx, path("vhosts", ctx.vhost, "topic-permissions")),
});

const listUserTopicPermissions = listCommand({
  name: "list_user_topic_permissions",
  usage: "list_user_topic_permissions [--no-table-headers] <username>",
  description: "Lists topic permissions of a user across all virtual hosts",
  section: "access control",
  columns: fields("vhost", "exchange", "write", "read"),
  fixedColumns: true,
  minArgs: 1,
  banner: ({ args }) => `Listing topic permissions for user "${args[0]}" ...`,
  fetch: ({ api, args }) => listOfUser(api, args[0]!, "topic-permissions"),
});

const setTopicPermissions: CommandSpec = {
  name: "set_topic_permissions",
  usage: "set_topic_permissions [--vhost <vhost>] <username> <exchange> <write> <read>",
  description: "Sets topic permissions of a user for a topic exchange",
  section: "access control",
  minArgs: 4,
  maxArgs: 4,
  banner: ({ args, vhost }) => `Setting topic permissions on "${args[1]}" for user "${args[0]}" in vhost "${vhost}" ...`,
  async run({ api, out, args, vhost }) {
    const [user, exchange, write, read] = args as [string, string, string, string];
    const res = await api.send("PUT", path("topic-permissions", vhost, user), { body: { exchange, write, read } });
    await explainPermissionRefusal(api, res, user, vhost, "topic permission");
    api.expectOk(res);
    out.done();
  },
};

const clearTopicPermissions: CommandSpec = {
  name: "clear_topic_permissions",
  usage: "clear_topic_permissions [--vhost <vhost>] <username> [<exchange>]",
  description: "Clears a user's topic permissions in a vhost, for one exchange or all",
  section: "access control",
  minArgs: 1,
  maxArgs: 2,
  banner: ({ args, vhost }) =>
    args[1] === undefined
      ? `Clearing topic permissions for user "${args[0]}" in vhost "${vhost}" ...`
      : `Clearing topic permissions on "${args[1]}" for user "${args[0]}" in vhost "${vhost}" ...`,
  async run({ api, out, args, vhost }) {
    const [user, exchange] = args as [string, string | undefined];
    const res = await api.send("DELETE", exchange === undefined ? path("topic-permissions", vhost, user) : path("topic-permissions", vhost, user, exchange));
    await explainClearRefusal(api, res, user, vhost);
    out.done();
  },
};

export const TOPIC_PERMISSION_COMMANDS: readonly CommandSpec[] = [listTopicPermissions, listUserTopicPermissions, setTopicPermissions, clearTopicPermissions];
