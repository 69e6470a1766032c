/**
 * The questions commands ask before or after a change to name the problem as rabbitmqctl does:
 * does this user exist (else exit 67), does this vhost exist (exit 65 for a list command, 69
 * for a change).
 */
import type { Item } from "../list-columns.js";
import type { ManagementApi } from "../management-api.js";
import { ManagementClient } from "../management-client.js";
import { CliError, EXIT, type ExitCode } from "../exit-codes.js";
import { reasonOf } from "../management-api.js";
import type { ApiResponse } from "../management-client.js";

export const noSuchUser = (user: string): CliError => new CliError(EXIT.noUser, `User ${user} does not exist`);

export const noSuchVhost = (vhost: string, exitCode: ExitCode): CliError => new CliError(exitCode, `Virtual host ${vhost} does not exist`);

export async function requireUser(api: ManagementApi, user: string): Promise<void> {
  if (!(await api.exists(ManagementClient.path("users", user)))) throw noSuchUser(user);
}

export async function requireVhost(api: ManagementApi, vhost: string, exitCode: ExitCode): Promise<void> {
  if (!(await api.exists(ManagementClient.path("vhosts", vhost)))) throw noSuchVhost(vhost, exitCode);
}

/** A list_* command's GET of `path`, a list within `ctx.vhost`: an unknown vhost is exit 65, as rabbitmqctl. */
export async function listAt(ctx: { api: ManagementApi; vhost: string }, path: string): Promise<Item[]> {
  const res = await ctx.api.send("GET", path);
  if (res.status === 404) throw noSuchVhost(ctx.vhost, EXIT.dataErr);
  return ctx.api.expectOk(res).body as Item[];
}

/** A list_* command over /api/<resource>/<vhost>. */
export const listInVhost = (ctx: { api: ManagementApi; vhost: string }, resource: string): Promise<Item[]> => listAt(ctx, ManagementClient.path(resource, ctx.vhost));


/** A list_user_* command over /api/users/<user>/<resource>: an unknown user is exit 67. */
export async function listOfUser(api: ManagementApi, user: string, resource: string): Promise<Item[]> {
  const res = await api.send("GET", ManagementClient.path("users", user, resource));
  if (res.status === 404) throw noSuchUser(user);
  return api.expectOk(res).body as Item[];
}

/**
 * After a PUT of (topic) permissions: the API's vhost_or_user_not_found does not say which is
 * missing, so ask and answer as rabbitmqctl (user first); an invalid pattern is exit 69.
 */
export async function explainPermissionRefusal(api: ManagementApi, res: ApiResponse, user: string, vhost: string, what: string): Promise<void> {
  if (res.status !== 400) return;
  if (reasonOf(res) === "vhost_or_user_not_found") {
    await requireUser(api, user);
    await requireVhost(api, vhost, EXIT.unavailable);
  }
  if (reasonOf(res).startsWith("invalid regular expression")) throw new CliError(EXIT.unavailable, `Invalid ${what} pattern: ${reasonOf(res)}`);
}

/** After a DELETE of (topic) permissions: nothing to clear is a success, as in rabbitmqctl, unless the user or vhost is unknown. */
export async function explainClearRefusal(api: ManagementApi, res: ApiResponse, user: string, vhost: string): Promise<void> {
  if (res.status !== 404) {
    api.expectOk(res);
    return;
  }
  await requireUser(api, user);
  await requireVhost(api, vhost, EXIT.unavailable);
}
