// coneyctl's user and virtual host commands, run as a subprocess against a real broker.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { ctl, usageError } from "./run-coneyctl.js";

const DONE = "Done. Don't forget to grant the user permissions to some virtual hosts! See 'coneyctl help set_permissions' to learn more.\n";

describe("coneyctl users", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
  });
  after(() => broker.close());
  const verify = (user: string, password: string) => broker.broker.authenticate(user, password) !== null;

  it("add_user with a password argument, then list_users shows it with its tags", async () => {
    const add = await ctl(broker, ["add_user", "carol", "carol-pw"]);
    assert.deepEqual(add, { code: 0, stderr: "", stdout: `Adding user "carol" ...\n${DONE}` });
    assert.ok(verify("carol", "carol-pw"));
    const list = await ctl(broker, ["list_users"]);
    assert.deepEqual(list, { code: 0, stderr: "", stdout: "Listing users ...\nuser\ttags\ncarol\t[]\nguest\t[administrator]\n" });
  });

  it("add_user reads the password from standard input when it is not given; -q prints nothing", async () => {
    const r = await ctl(broker, ["add_user", "-q", "dave"], { stdin: "dave-pw\n" });
    assert.deepEqual(r, { code: 0, stderr: "", stdout: "" });
    assert.ok(verify("dave", "dave-pw"));
  });

  it("add_user refuses an existing user (70), a missing password (65) and an empty name (65)", async () => {
    const [exists, noPassword, empty] = await Promise.all([
      ctl(broker, ["add_user", "guest", "x"]),
      ctl(broker, ["add_user", "erin"]),
      ctl(broker, ["add_user", "", "x"]),
    ]);
    assert.deepEqual([exists.code, exists.stderr], [70, 'Error:\nUser "guest" already exists\n']);
    assert.ok(verify("guest", "guest"), "the existing user is unchanged");
    assert.deepEqual([noPassword.code, noPassword.stderr], [65, "Error:\nPassword is not provided via argument or stdin\n"]);
    assert.equal(broker.broker.users.get("erin"), undefined);
    assert.equal(empty.code, 65);
    assert.ok(empty.stderr.startsWith("Error (argument validation): Bad argument: user cannot be an empty string\n"), empty.stderr);
  });

  it("change_password and set_user_tags; tags keep the password", async () => {
    broker.broker.putUser("frank", { password: "old", tags: [] });
    const change = await ctl(broker, ["change_password", "frank", "new"]);
    assert.deepEqual(change, { code: 0, stderr: "", stdout: 'Changing password for user "frank" ...\n' });
    assert.ok(verify("frank", "new") && !verify("frank", "old"));
    const tags = await ctl(broker, ["set_user_tags", "frank", "monitoring", "policymaker"]);
    assert.deepEqual(tags, { code: 0, stderr: "", stdout: 'Setting tags for user "frank" to [monitoring, policymaker] ...\n' });
    assert.deepEqual(broker.broker.users.get("frank")!.tags, ["monitoring", "policymaker"]);
    assert.ok(verify("frank", "new"));
    const list = await ctl(broker, ["list_users", "--no-table-headers", "-q"]);
    assert.ok(list.stdout.includes("frank\t[monitoring, policymaker]\n"), list.stdout);
    assert.ok(!list.stdout.includes("user\ttags"));
  });

  it("authenticate_user: Success, or exit 65 with rabbitmqctl's message", async () => {
    broker.broker.putUser("plain", { password: "plain-pw", tags: [] }); // no management tag
    const [ok, plain, bad] = await Promise.all([
      ctl(broker, ["authenticate_user", "guest", "guest"]),
      ctl(broker, ["authenticate_user", "plain", "plain-pw"]),
      ctl(broker, ["authenticate_user", "guest", "wrong"]),
    ]);
    assert.deepEqual(ok, { code: 0, stderr: "", stdout: 'Authenticating user "guest" ...\nSuccess\n' });
    assert.equal(plain.code, 0, "a user without management tags still authenticates");
    assert.deepEqual(bad, {
      code: 65,
      stdout: 'Authenticating user "guest" ...\n',
      stderr: "Error:\nError: failed to authenticate user \"guest\"\nuser 'guest' - invalid credentials\n",
    });
  });

  it("delete_user, and exit 67 for unknown users on delete_user, change_password, set_user_tags", async () => {
    broker.broker.putUser("gone", { password: "x", tags: [] });
    const del = await ctl(broker, ["delete_user", "gone"]);
    assert.deepEqual(del, { code: 0, stderr: "", stdout: 'Deleting user "gone" ...\n' });
    assert.equal(broker.broker.users.get("gone"), undefined);
    const results = await Promise.all([
      ctl(broker, ["delete_user", "gone"]),
      ctl(broker, ["change_password", "gone", "x"]),
      ctl(broker, ["set_user_tags", "gone", "administrator"]),
    ]);
    for (const r of results) assert.deepEqual([r.code, r.stderr], [67, 'Error:\nUser "gone" does not exist\n']);
  });

  it("user commands without their arguments exit 64", async () => {
    const cases: [string, string][] = [
      ["add_user", "add_user <username> <password>"],
      ["delete_user", "delete_user <username>"],
      ["change_password", "change_password <username> <password>"],
      ["set_user_tags", "set_user_tags <username> <tag> [...]"],
      ["authenticate_user", "authenticate_user <username> <password>"],
    ];
    const results = await Promise.all(cases.map(([cmd]) => ctl(broker, [cmd])));
    results.forEach((r, i) => assert.deepEqual(r, { code: 64, stdout: "", stderr: usageError(["--port", String(broker.httpPort), cases[i]![0]], cases[i]![1]) }));
  });
});

describe("coneyctl virtual hosts", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
  });
  after(() => broker.close());

  it("add_vhost with a description, list_vhosts with columns, delete_vhost", async () => {
    const add = await ctl(broker, ["add_vhost", "shop", "--description", "the shop", "--default-queue-type", "quorum"]);
    assert.deepEqual(add, { code: 0, stderr: "", stdout: 'Adding vhost "shop" ...\n' });
    const [names, cols] = await Promise.all([ctl(broker, ["list_vhosts"]), ctl(broker, ["list_vhosts", "name", "description", "default_queue_type"])]);
    assert.deepEqual(names, { code: 0, stderr: "", stdout: "Listing vhosts ...\nname\n/\nshop\n" });
    assert.equal(cols.stdout, "Listing vhosts ...\nname\tdescription\tdefault_queue_type\n/\tDefault virtual host\tclassic\nshop\tthe shop\tquorum\n");
    const del = await ctl(broker, ["delete_vhost", "shop"]);
    assert.deepEqual(del, { code: 0, stderr: "", stdout: 'Deleting vhost "shop" ...\n' });
    assert.equal(broker.broker.vhosts.has("shop"), false);
  });

  it("delete_vhost of an unknown vhost exits 69; a bad column exits 64; a bad queue type exits 64", async () => {
    const [del, col, dqt] = await Promise.all([
      ctl(broker, ["delete_vhost", "nope"]),
      ctl(broker, ["list_vhosts", "name,colour"]),
      ctl(broker, ["add_vhost", "x", "--default-queue-type", "lifo"]),
    ]);
    assert.deepEqual([del.code, del.stderr], [69, "Error:\nVirtual host nope does not exist\n"]);
    assert.equal(col.code, 64);
    assert.ok(col.stderr.startsWith("Error (argument validation): Info key(s) colour are not supported\n"), col.stderr);
    assert.equal(dqt.code, 64);
    assert.equal(broker.broker.vhosts.has("x"), false);
  });
});
