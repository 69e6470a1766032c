/**
 * The questions commands ask before or after a change to name the problem as rabbitmqctl does:
 * does this user exist (else exit 67), does this vhost exist (exit 65 for a list command, 69
 * for a change).
 */
import type { Item } from "../list-columns.js";
import type { ManagementApi } from "../management-api.js";
import { ManagementClient } from "../management-client.js";
import { CliError, EXIT, type ExitCode } from "../exit-codes.js";

export const noSuchUser = (user: string): CliError => new CliError(EXIT.noUser, `User ${user} does not exist`);

export const noSuchVhost = (vhost: string, exitCode: ExitCode): CliError => new CliError(exitCode, `Virtual host ${vhost} does not exist`);

export async function requireUser(api: ManagementApi, user: string): Promise<void> {
  if (!(await api.exists(ManagementClient.path("users", user)))) throw noSuchUser(user);
}

export async function requireVhost(api: ManagementApi, vhost: string, exitCode: ExitCode): Promise<void> {
  if (!(await api.exists(ManagementClient.path("vhosts", vhost)))) throw noSuchVhost(vhost, exitCode);
}

/** A list_* command over /api/<resource>/<vhost>: an unknown vhost is exit 65, as rabbitmqctl. */
export async function listInVhost(ctx: { api: ManagementApi; vhost: string }, resource: string): Promise<Item[]> {
  const res = await ctx.api.send("GET", ManagementClient.path(resource, ctx.vhost));
  if (res.status === 404) throw noSuchVhost(ctx.vhost, EXIT.dataErr);
  return ctx.api.expectOk(res).body as Item[];
}

