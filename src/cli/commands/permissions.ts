/**
 * The spec's permission administration with rabbitmqctl's names, banners and columns:
 * list_permissions, list_user_permissions, set_permissions, clear_permissions.
 */
import type { CommandSpec } from "../command-spec.js";
import { ManagementClient } from "../management-client.js";
import { listCommand } from "../list-command.js";
import { fields } from "../list-columns.js";
import { explainClearRefusal, explainPermissionRefusal, listInVhost, listOfUser } from "./lookups.js";

const path = ManagementClient.path;

const listPermissions = listCommand({
  name: "list_permissions",
  usage: "list_permissions [--vhost <vhost>] [--no-table-headers]",
  description: "Lists user permissions in a virtual host",
  section: "access control",
  columns: fields("user", "configure", "write", "read"),
  fixedColumns: true,
  banner: ({ vhost }) => `Listing permissions for vhost "${vhost}" ...`,
  fetch: (ctx) => listInVhost(ctx, "permissions"),
});

const listUserPermissions = listCommand({
  name: "list_user_permissions",
  usage: "list_user_permissions [--no-table-headers] <username>",
  description: "Lists permissions of a user across all virtual hosts",
  section: "access control",
  columns: fields("vhost", "configure", "write", "read"),
  fixedColumns: true,
  minArgs: 1,
  banner: ({ args }) => `Listing permissions for user "${args[0]}" ...`,
  fetch: ({ api, args }) => listOfUser(api, args[0]!, "permissions"),
});

const setPermissions: CommandSpec = {
  name: "set_permissions",
  usage: "set_permissions [--vhost <vhost>] <username> <conf> <write> <read>",
  description: "Sets user permissions for a vhost",
  section: "access control",
  minArgs: 4,
  maxArgs: 4,
  banner: ({ args, vhost }) => `Setting permissions for user "${args[0]}" in vhost "${vhost}" ...`,
  async run({ api, out, args, vhost }) {
    const [user, configure, write, read] = args as [string, string, string, string];
    const res = await api.send("PUT", path("permissions", vhost, user), { body: { configure, write, read } });
    await explainPermissionRefusal(api, res, user, vhost, "permission");
    api.expectOk(res);
    out.done();
  },
};

const clearPermissions: CommandSpec = {
  name: "clear_permissions",
  usage: "clear_permissions [--vhost <vhost>] <username>",
  description: "Revokes user permissions for a vhost",
  section: "access control",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args, vhost }) => `Clearing permissions for user "${args[0]}" in vhost "${vhost}" ...`,
  async run({ api, out, args, vhost }) {
    const user = args[0]!;
    await explainClearRefusal(api, await api.send("DELETE", path("permissions", vhost, user)), user, vhost);
    out.done();
  },
};

export const PERMISSION_COMMANDS: readonly CommandSpec[] = [listPermissions, listUserPermissions, setPermissions, clearPermissions];
