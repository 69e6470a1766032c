// coneyctl's permission commands (the spec's permission administration), run as a subprocess
// against a real broker: banners, tables, exit codes and every error path.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { ctl, usageError } from "./run-coneyctl.js";

describe("coneyctl permissions", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
    broker.broker.putUser("alice", { password: "alice-pw", tags: [] });
    broker.broker.putUser("bob", { password: "bob-pw", tags: [] });
    broker.broker.putVhost("orders", {});
  });
  after(() => broker.close());
  const port = () => String(broker.httpPort);

  it("list_permissions shows the default vhost's permissions under rabbitmqctl's banner and header", async () => {
    const r = await ctl(broker, ["list_permissions"]);
    assert.deepEqual(r, { code: 0, stderr: "", stdout: 'Listing permissions for vhost "/" ...\nuser\tconfigure\twrite\tread\nguest\t.*\t.*\t.*\n' });
  });

  it("set_permissions, list_permissions -p, list_user_permissions and clear_permissions", async () => {
    const set = await ctl(broker, ["set_permissions", "-p", "orders", "alice", "^$", "^orders$", "^$"]);
    assert.deepEqual(set, { code: 0, stderr: "", stdout: 'Setting permissions for user "alice" in vhost "orders" ...\n' });

    const [perVhost, perUser] = await Promise.all([ctl(broker, ["list_permissions", "-p", "orders"]), ctl(broker, ["list_user_permissions", "alice"])]);
    assert.equal(perVhost.code, 0);
    assert.equal(perVhost.stdout, 'Listing permissions for vhost "orders" ...\nuser\tconfigure\twrite\tread\nalice\t^$\t^orders$\t^$\n');
    assert.equal(perUser.code, 0);
    assert.equal(perUser.stdout, 'Listing permissions for user "alice" ...\nvhost\tconfigure\twrite\tread\norders\t^$\t^orders$\t^$\n');

    const clear = await ctl(broker, ["clear_permissions", "-p", "orders", "alice"]);
    assert.deepEqual(clear, { code: 0, stderr: "", stdout: 'Clearing permissions for user "alice" in vhost "orders" ...\n' });
    assert.equal(broker.broker.users.permission("alice", "orders"), undefined);
    // Clearing what is not there is no error in rabbitmqctl either.
    assert.equal((await ctl(broker, ["clear_permissions", "-p", "orders", "alice"])).code, 0);
  });

  it("the permissions set take effect for AMQP clients (consumer of prefixed queues)", async () => {
    assert.equal((await ctl(broker, ["set_permissions", "-p", "orders", "bob", "^$", "^$", "^orders-.*"])).code, 0);
    broker.broker.setPermission("guest", "orders", { configure: ".*", write: ".*", read: ".*" });
    const admin = await amqp.connect(broker.urlFor("guest", "guest", "orders"));
    const ach = await admin.createChannel();
    await ach.assertQueue("orders-eu");
    await ach.assertQueue("billing");
    const conn = await amqp.connect(broker.urlFor("bob", "bob-pw", "orders"));
    try {
      const ch = await conn.createChannel();
      ch.on("error", () => {}); // the refusal closes the channel; the rejected get() is what is checked
      assert.equal(await ch.get("orders-eu"), false);
      await assert.rejects(ch.get("billing"), /ACCESS_REFUSED/);
    } finally {
      await conn.close().catch(() => {});
      await admin.close();
    }
  });

  it("the spec's five profiles are set and listed as given", async () => {
    const profiles: [string, string, string, string][] = [
      ["full", ".*", ".*", ".*"],
      ["producer", "^$", "^orders$", "^$"],
      ["consumer", "^$", "^$", "^orders-.*"],
      ["monitor", "^$", "^$", ".*"],
      ["app1", "^app1_.*", "^app1_.*", "^app1_.*"],
    ];
    for (const [user] of profiles) broker.broker.putUser(user, { password: "pw", tags: [] });
    const results = await Promise.all(profiles.map((p) => ctl(broker, ["set_permissions", "-q", "--vhost", "orders", ...p])));
    for (const r of results) assert.deepEqual(r, { code: 0, stdout: "", stderr: "" }, "-q prints no banner");
    const listed = await ctl(broker, ["list_permissions", "-p", "orders", "-s"]);
    for (const [user, c, w, r] of profiles) assert.ok(listed.stdout.includes(`${user}\t${c}\t${w}\t${r}\n`), listed.stdout);
    assert.ok(!listed.stdout.includes("Listing"), "-s hides the banner");
    assert.ok(!listed.stdout.startsWith("user\t"), "-s hides the header");
  });

  it("an unknown vhost on list_permissions exits 65 and names the vhost", async () => {
    const r = await ctl(broker, ["list_permissions", "-p", "no-such-vhost"]);
    assert.deepEqual(r, { code: 65, stdout: 'Listing permissions for vhost "no-such-vhost" ...\n', stderr: "Error:\nVirtual host no-such-vhost does not exist\n" });
  });

  it("an unknown user exits 67 on list_user_permissions, set_permissions and clear_permissions", async () => {
    const [list, set, clear] = await Promise.all([
      ctl(broker, ["list_user_permissions", "nobody"]),
      ctl(broker, ["set_permissions", "nobody", ".*", ".*", ".*"]),
      ctl(broker, ["clear_permissions", "nobody"]),
    ]);
    for (const r of [list, set, clear]) {
      assert.equal(r.code, 67);
      assert.equal(r.stderr, "Error:\nUser nobody does not exist\n");
    }
  });

  it("an unknown vhost on set_permissions and clear_permissions exits 69", async () => {
    const [set, clear] = await Promise.all([
      ctl(broker, ["set_permissions", "-p", "no-such-vhost", "bob", ".*", ".*", ".*"]),
      ctl(broker, ["clear_permissions", "-p", "no-such-vhost", "bob"]),
    ]);
    for (const r of [set, clear]) assert.deepEqual([r.code, r.stderr], [69, "Error:\nVirtual host no-such-vhost does not exist\n"]);
  });

  it("an invalid pattern exits 69, names the pattern and changes nothing", async () => {
    assert.equal((await ctl(broker, ["set_permissions", "bob", "^bob-.*", "^bob-.*", "^bob-.*"])).code, 0);
    const r = await ctl(broker, ["set_permissions", "bob", "^ok$", "(unclosed", "^ok$"]);
    assert.equal(r.code, 69);
    assert.match(r.stderr, /^Error:\nInvalid permission pattern: invalid regular expression '\(unclosed': .*missing closing \)/);
    const p = broker.broker.users.permission("bob", "/")!;
    assert.deepEqual([p.configure, p.write, p.read], ["^bob-.*", "^bob-.*", "^bob-.*"]);
  });

  it("missing arguments exit 64 with rabbitmqctl's message and the usage line", async () => {
    const cases: [string[], string][] = [
      [["set_permissions", "bob", ".*"], "set_permissions [--vhost <vhost>] <username> <conf> <write> <read>"],
      [["clear_permissions"], "clear_permissions [--vhost <vhost>] <username>"],
      [["list_user_permissions"], "list_user_permissions [--no-table-headers] <username>"],
    ];
    const results = await Promise.all(cases.map(([args]) => ctl(broker, args)));
    results.forEach((r, i) => {
      const [args, usage] = cases[i]!;
      assert.deepEqual(r, { code: 64, stdout: "", stderr: usageError(["--port", port(), ...args], usage) });
    });
    const tooMany = await ctl(broker, ["list_permissions", "extra"]);
    assert.equal(tooMany.code, 64);
    assert.ok(tooMany.stderr.startsWith("Error (argument validation): too many arguments.\n"), tooMany.stderr);
  });

  it("--formatter json prints the rows as JSON objects, without a banner", async () => {
    const r = await ctl(broker, ["list_user_permissions", "bob", "--formatter", "json"]);
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.stdout), [{ vhost: "/", configure: "^bob-.*", write: "^bob-.*", read: "^bob-.*" }, { vhost: "orders", configure: "^$", write: "^$", read: "^orders-.*" }]);
  });

  it("set_topic_permissions, list_topic_permissions, list_user_topic_permissions, clear_topic_permissions; enforced on publish and bind", async () => {
    broker.broker.putUser("topical", { password: "pw", tags: [] });
    broker.broker.setPermission("topical", "orders", { configure: ".*", write: ".*", read: ".*" });
    const set = await ctl(broker, ["set_topic_permissions", "-p", "orders", "topical", "amq.topic", "^eu\\.", "^bind\\."]);
    assert.deepEqual(set, { code: 0, stderr: "", stdout: 'Setting topic permissions on "amq.topic" for user "topical" in vhost "orders" ...\n' });
    const [perVhost, perUser] = await Promise.all([ctl(broker, ["list_topic_permissions", "-p", "orders"]), ctl(broker, ["list_user_topic_permissions", "topical"])]);
    assert.equal(perVhost.stdout, 'Listing topic permissions for vhost "orders" ...\nuser\texchange\twrite\tread\ntopical\tamq.topic\t^eu\\.\t^bind\\.\n');
    assert.equal(perUser.stdout, 'Listing topic permissions for user "topical" ...\nvhost\texchange\twrite\tread\norders\tamq.topic\t^eu\\.\t^bind\\.\n');

    const conn = await amqp.connect(broker.urlFor("topical", "pw", "orders"));
    try {
      const ok = await conn.createConfirmChannel();
      ok.publish("amq.topic", "eu.orders", Buffer.from("m"));
      await ok.waitForConfirms();
      const q = (await ok.assertQueue("", { exclusive: true })).queue;
      await ok.bindQueue(q, "amq.topic", "bind.all");
      const refused = await conn.createConfirmChannel();
      refused.on("error", () => {});
      refused.publish("amq.topic", "us.orders", Buffer.from("m"));
      await assert.rejects(refused.waitForConfirms(), /closed|ACCESS_REFUSED/);
      const bindRefused = await conn.createChannel();
      bindRefused.on("error", () => {});
      await assert.rejects(bindRefused.bindQueue(q, "amq.topic", "other.key"), /ACCESS_REFUSED - access to topic 'other.key' in exchange 'amq.topic' in vhost 'orders' refused for user 'topical'/);
    } finally {
      await conn.close().catch(() => {});
    }

    const clear = await ctl(broker, ["clear_topic_permissions", "-p", "orders", "topical", "amq.topic"]);
    assert.deepEqual(clear, { code: 0, stderr: "", stdout: 'Clearing topic permissions on "amq.topic" for user "topical" in vhost "orders" ...\n' });
    assert.equal(broker.broker.users.topicPermission("topical", "orders", "amq.topic"), undefined);
    assert.equal((await ctl(broker, ["clear_topic_permissions", "-p", "orders", "topical"])).code, 0, "nothing left to clear is no error");
    assert.equal((await ctl(broker, ["set_topic_permissions", "nobody", "amq.topic", ".*", ".*"])).code, 67);
    assert.equal((await ctl(broker, ["list_topic_permissions", "-p", "no-such-vhost"])).code, 65);
  });
});
