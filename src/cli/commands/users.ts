/**
 * User administration with rabbitmqctl's names and texts: list_users, add_user, delete_user,
 * change_password, set_user_tags, authenticate_user. A password left out is read from standard
 * input, as rabbitmqctl does.
 */
import type { CommandContext, CommandSpec } from "../command-spec.js";
import { CliError, EXIT, type ExitCode } from "../exit-codes.js";
import { listCommand } from "../list-command.js";
import type { Item } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";

const path = ManagementClient.path;
const quotedNoSuchUser = (user: string): CliError => new CliError(EXIT.noUser, `User "${user}" does not exist`);

/** The second argument, or the first line of standard input; rabbitmqctl's exit code when neither. */
async function passwordOf(ctx: CommandContext, missingCode: ExitCode): Promise<string> {
  if (ctx.args[1] !== undefined) return ctx.args[1];
  const input = await ctx.readStdin();
  if (input === null) throw new CliError(missingCode, "Password is not provided via argument or stdin");
  return input.split(/\r?\n/)[0]!;
}

/** The user's record; an unknown user is rabbitmqctl's exit 67. */
async function userRecord(ctx: CommandContext, user: string): Promise<Item> {
  const res = await ctx.api.send("GET", path("users", user));
  if (res.status === 404) throw quotedNoSuchUser(user);
  return ctx.api.expectOk(res).body as Item;
}

const listUsers = listCommand({
  name: "list_users",
  usage: "list_users [--no-table-headers]",
  description: "List user names and tags",
  section: "users",
  columns: { user: (u) => u["name"], tags: (u) => u["tags"] },
  fixedColumns: true,
  banner: () => "Listing users ...",
  fetch: ({ api }) => api.get<Item[]>(path("users")),
});

const ADD_USER_DONE = "Done. Don't forget to grant the user permissions to some virtual hosts! See 'coneyctl help set_permissions' to learn more.";

const addUser: CommandSpec = {
  name: "add_user",
  usage: "add_user <username> <password>",
  description: "Creates a new user in the internal database. This user will have no permissions for any virtual hosts by default.",
  section: "users",
  minArgs: 1,
  maxArgs: 2,
  validate: (args) => (args[0] === "" ? { exitCode: EXIT.dataErr, message: "Bad argument: user cannot be an empty string" } : null),
  banner: ({ args }) => `Adding user "${args[0]}" ...`,
  async run(ctx) {
    const user = ctx.args[0]!;
    if (await ctx.api.exists(path("users", user))) throw new CliError(EXIT.software, `User "${user}" already exists`);
    const password = await passwordOf(ctx, EXIT.dataErr);
    ctx.api.expectOk(await ctx.api.send("PUT", path("users", user), { body: { password, tags: "" } }));
    ctx.out.info(ADD_USER_DONE);
  },
};

const deleteUser: CommandSpec = {
  name: "delete_user",
  usage: "delete_user <username>",
  description: "Removes a user from the internal database. Has no effect on users provided by external backends such as LDAP",
  section: "users",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args }) => `Deleting user "${args[0]}" ...`,
  async run({ api, out, args }) {
    const res = await api.send("DELETE", path("users", args[0]!));
    if (res.status === 404) throw quotedNoSuchUser(args[0]!);
    api.expectOk(res);
    out.done();
  },
};

const changePassword: CommandSpec = {
  name: "change_password",
  usage: "change_password <username> <password>",
  description: "Changes the user password",
  section: "users",
  minArgs: 1,
  maxArgs: 2,
  banner: ({ args }) => `Changing password for user "${args[0]}" ...`,
  async run(ctx) {
    const user = ctx.args[0]!;
    const record = await userRecord(ctx, user);
    const password = await passwordOf(ctx, EXIT.software);
    ctx.api.expectOk(await ctx.api.send("PUT", path("users", user), { body: { password, tags: record["tags"] } }));
    ctx.out.done();
  },
};

const setUserTags: CommandSpec = {
  name: "set_user_tags",
  usage: "set_user_tags <username> <tag> [...]",
  description: "Sets user tags",
  section: "users",
  minArgs: 1,
  maxArgs: Infinity,
  banner: ({ args }) => `Setting tags for user "${args[0]}" to [${args.slice(1).join(", ")}] ...`,
  async run(ctx) {
    const [user, ...tags] = ctx.args as [string, ...string[]];
    const record = await userRecord(ctx, user);
    // Keep the password: send back the stored hash with its algorithm.
    const body = { tags, password_hash: record["password_hash"], hashing_algorithm: record["hashing_algorithm"] };
    ctx.api.expectOk(await ctx.api.send("PUT", path("users", user), { body }));
    ctx.out.done();
  },
};

const authenticateUser: CommandSpec = {
  name: "authenticate_user",
  usage: "authenticate_user <username> <password>",
  description: "Attempts to authenticate a user. Exits with a non-zero code if authentication fails.",
  section: "users",
  minArgs: 1,
  maxArgs: 2,
  banner: ({ args }) => `Authenticating user "${args[0]}" ...`,
  async run(ctx) {
    const username = ctx.args[0]!;
    const password = await passwordOf(ctx, EXIT.software);
    const res = await ctx.api.send("GET", path("whoami"), { auth: { username, password } });
    // 403 means the credentials were accepted but the user may not use the management API.
    if (res.status === 401) {
      throw new CliError(EXIT.dataErr, `Error: failed to authenticate user "${username}"\nuser '${username}' - invalid credentials`);
    }
    if (res.status !== 403) ctx.api.expectOk(res);
    ctx.out.message("Success");
  },
};

export const USER_COMMANDS: readonly CommandSpec[] = [listUsers, addUser, deleteUser, changePassword, setUserTags, authenticateUser];
