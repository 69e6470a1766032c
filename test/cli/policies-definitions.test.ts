// coneyctl's policy and definitions commands, run as a subprocess against real brokers.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { ctl, usageError } from "./run-coneyctl.js";

describe("coneyctl policies", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
  });
  after(() => broker.close());

  it("set_policy, list_policies and clear_policy with rabbitmqctl's banners", async () => {
    const set = await ctl(broker, ["set_policy", "--priority", "5", "--apply-to", "queues", "limits", "^orders\\.", '{"max-length":100}']);
    assert.deepEqual(set, {
      code: 0,
      stderr: "",
      stdout: 'Setting policy "limits" for pattern "^orders\\." to "{"max-length":100}" with priority "5" for vhost "/" ...\n',
    });
    const list = await ctl(broker, ["list_policies"]);
    assert.deepEqual(list, {
      code: 0,
      stderr: "",
      stdout: 'Listing policies for vhost "/" ...\nvhost\tname\tpattern\tapply-to\tdefinition\tpriority\n/\tlimits\t^orders\\.\tqueues\t{"max-length":100}\t5\n',
    });
    const json = await ctl(broker, ["list_policies", "--formatter", "json"]);
    assert.deepEqual(JSON.parse(json.stdout), [{ vhost: "/", name: "limits", pattern: "^orders\\.", "apply-to": "queues", definition: { "max-length": 100 }, priority: 5 }]);
    const clear = await ctl(broker, ["clear_policy", "limits"]);
    assert.deepEqual(clear, { code: 0, stderr: "", stdout: 'Clearing policy "limits" on vhost "/" ...\n' });
    assert.equal(broker.broker.vhost("/").policies.size, 0);
  });

  it("policy errors: bad JSON, a definition the broker refuses, unknown vhost, unknown policy, missing args", async () => {
    const [json, refused, vhost, unknown, listVhost, missing] = await Promise.all([
      ctl(broker, ["set_policy", "p", ".*", "{max-length: 1"]),
      ctl(broker, ["set_policy", "p", ".*", '{"no-such-key":1}']),
      ctl(broker, ["set_policy", "-p", "nope", "p", ".*", '{"max-length":1}']),
      ctl(broker, ["clear_policy", "ghost"]),
      ctl(broker, ["list_policies", "-p", "nope"]),
      ctl(broker, ["set_policy", "p", ".*"]),
    ]);
    assert.equal(json.code, 69);
    assert.match(json.stderr, /^Error:\nJSON decoding error: /);
    assert.equal(refused.code, 69);
    assert.match(refused.stderr, /no-such-key/);
    assert.deepEqual([vhost.code, vhost.stderr], [69, "Error:\nVirtual host nope does not exist\n"]);
    assert.deepEqual([unknown.code, unknown.stderr], [69, "Error:\nParameter does not exist\n"]);
    assert.deepEqual([listVhost.code, listVhost.stderr], [65, "Error:\nVirtual host nope does not exist\n"]);
    assert.deepEqual(missing, {
      code: 64,
      stdout: "",
      stderr: usageError(["--port", String(broker.httpPort), "set_policy", "p", ".*"], "set_policy [--vhost <vhost>] [--priority <priority>] [--apply-to <apply-to>] <name> <pattern> <definition>"),
    });
    assert.equal(broker.broker.vhost("/").policies.size, 0);
  });
});

describe("coneyctl definitions", () => {
  let source: TestBroker;
  let target: TestBroker;
  let dir: string;
  before(async () => {
    [source, target] = await Promise.all([startTestBroker(), startTestBroker()]);
    dir = mkdtempSync(join(tmpdir(), "coneyctl-defs-"));
    source.broker.putVhost("shop", {});
    source.broker.putUser("app", { password: "app-pw", tags: ["management"] });
    source.broker.setPermission("app", "shop", { configure: "^app_.*", write: "^app_.*", read: "^app_.*" });
  });
  after(async () => {
    await Promise.all([source.close(), target.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("export_definitions to a file and import_definitions from it into another broker", async () => {
    const file = join(dir, "defs.json");
    const exp = await ctl(source, ["export_definitions", file]);
    assert.deepEqual(exp, { code: 0, stderr: "", stdout: `Exporting definitions in JSON to a file at "${file}" ...\n` });
    const doc = JSON.parse(readFileSync(file, "utf8")) as { users: { name: string }[] };
    assert.ok(doc.users.some((u) => u.name === "app"));
    const imp = await ctl(target, ["import_definitions", file]);
    assert.deepEqual(imp, { code: 0, stderr: "", stdout: `Importing definitions in JSON from a file at "${file}" ...\nSuccessfully imported definitions.\n` });
    assert.ok(target.broker.authenticate("app", "app-pw"));
    assert.equal(target.broker.users.permission("app", "shop")?.configure, "^app_.*");
  });

  it("'-' exports to stdout and imports from stdin, with no banner", async () => {
    const exp = await ctl(source, ["export_definitions", "-"]);
    assert.equal(exp.code, 0);
    const doc = JSON.parse(exp.stdout) as { vhosts: { name: string }[] };
    assert.ok(doc.vhosts.some((v) => v.name === "shop"));
    const piped = JSON.stringify({ vhosts: [{ name: "piped" }] });
    const imp = await ctl(target, ["import_definitions", "-"], { stdin: piped });
    assert.deepEqual(imp, { code: 0, stderr: "", stdout: "" });
    assert.ok(target.broker.vhosts.has("piped"));
  });

  it("definition errors: missing file, missing directory, unparsable JSON, refused document, missing argument", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{ not json");
    const [noFile, noDir, parse, refused, missing] = await Promise.all([
      ctl(target, ["import_definitions", join(dir, "absent.json")]),
      ctl(source, ["export_definitions", join(dir, "no-dir", "x.json")]),
      ctl(target, ["import_definitions", bad]),
      ctl(target, ["import_definitions", "-"], { stdin: "[1,2]" }),
      ctl(source, ["export_definitions"]),
    ]);
    assert.equal(noFile.code, 65);
    assert.ok(noFile.stderr.startsWith(`Error (argument validation): Bad argument: File ${join(dir, "absent.json")} does not exist\n`), noFile.stderr);
    assert.equal(noDir.code, 65);
    assert.ok(noDir.stderr.startsWith(`Error (argument validation): Bad argument: Directory ${join(dir, "no-dir")} does not exist\n`), noDir.stderr);
    assert.equal(parse.code, 65);
    assert.match(parse.stderr, /^Error:\nFailed to deserialise input \(format: JSON\) \(error: /);
    assert.equal(refused.code, 69);
    assert.match(refused.stderr, /^Error:\n.*definitions must be a JSON object/);
    assert.equal(missing.code, 64);
  });
});
