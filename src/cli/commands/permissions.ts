/**
 * The spec's permission administration with rabbitmqctl's names, banners and columns:
 * list_permissions, list_user_permissions, set_permissions, clear_permissions.
 */
import type { CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { reasonOf } from "../management-api.js";
import { ManagementClient } from "../management-client.js";
import { listCommand } from "../list-command.js";
import { fields, type Item } from "../list-columns.js";
import { listInVhost, noSuchUser, requireUser, requireVhost } from "./lookups.js";

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
  async fetch({ api, args }) {
    const res = await api.send("GET", path("users", args[0]!, "permissions"));
    if (res.status === 404) throw noSuchUser(args[0]!);
    return api.expectOk(res).body as Item[];
  },
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
    if (res.status === 400 && reasonOf(res) === "vhost_or_user_not_found") {
      // The API does not say which one is missing; ask, and answer as rabbitmqctl (user first).
      await requireUser(api, user);
      await requireVhost(api, vhost, EXIT.unavailable);
    }
    if (res.status === 400 && reasonOf(res).startsWith("invalid regular expression")) {
      throw new CliError(EXIT.unavailable, `Invalid permission pattern: ${reasonOf(res)}`);
    }
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
    const res = await api.send("DELETE", path("permissions", vhost, user));
    if (res.status === 404) {
      // Nothing to clear is a success in rabbitmqctl, unless the user or the vhost is unknown.
      await requireUser(api, user);
      await requireVhost(api, vhost, EXIT.unavailable);
    } else {
      api.expectOk(res);
    }
    out.done();
  },
};

export const PERMISSION_COMMANDS: readonly CommandSpec[] = [listPermissions, listUserPermissions, setPermissions, clearPermissions];
