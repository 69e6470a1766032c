// coneyctl's general behaviour, as a subprocess: help, usage errors, unknown commands and
// options, connection flags and CONEY_* variables, an unreachable broker, output formats,
// status and await_startup.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { ALL_COMMANDS } from "../../src/cli/commands/index.js";
import { ctl, run } from "./run-coneyctl.js";

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const ISSUE_COMMANDS = [
  "list_permissions", "list_user_permissions", "set_permissions", "clear_permissions",
  "list_topic_permissions", "list_user_topic_permissions", "set_topic_permissions", "clear_topic_permissions",
  "list_users", "add_user", "delete_user", "change_password", "set_user_tags", "authenticate_user",
  "list_vhosts", "add_vhost", "delete_vhost", "list_queues", "list_exchanges", "list_bindings", "list_connections", "list_mqtt_connections",
  "list_stream_connections", "list_stream_publishers", "list_stream_consumers",
  "list_channels", "list_consumers", "close_connection", "purge_queue", "delete_queue", "set_policy", "clear_policy",
  "list_policies", "export_definitions", "import_definitions", "status", "cluster_status", "await_startup", "forget_cluster_node", "help", "list_audit",
  // issue 26: shovels
  "list_shovels", "shovel_status", "delete_shovel", "restart_shovel",
  // issue 26: federation
  "federation_status", "list_federation_links", "restart_federation_link",
  // issue 42: queue leaders evened out over the workers (rabbitmq-queues rebalance all)
  "rebalance_queues",
];

describe("coneyctl general behaviour", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
    broker.broker.putUser("ops", { password: "ops-pw", tags: ["administrator"] });
  });
  after(() => broker.close());

  it("help lists every command; help <command> and <command> --help print its usage", async () => {
    const [all, one, flag, unknown] = await Promise.all([run(["help"]), run(["help", "set_permissions"]), run(["clear_permissions", "--help"]), run(["help", "frobnicate"])]);
    assert.equal(all.code, 0);
    assert.ok(all.stdout.includes("Available commands:"));
    assert.deepEqual(ALL_COMMANDS.map((c) => c.name).sort(), [...ISSUE_COMMANDS].sort());
    for (const name of ISSUE_COMMANDS) assert.ok(all.stdout.includes(`   ${name} `), name);
    assert.equal(one.code, 0);
    assert.ok(one.stdout.startsWith("\nUsage\n\nconeyctl [--host <host>] [--port <port>] [--username <username>] [--password <password>] [--quiet] set_permissions [--vhost <vhost>] <username> <conf> <write> <read>\n\nSets user permissions for a vhost\n"), one.stdout);
    assert.equal(flag.code, 0);
    assert.ok(flag.stdout.includes("clear_permissions [--vhost <vhost>] <username>"));
    assert.deepEqual([unknown.code, unknown.stderr], [64, "Error:\nCommand 'frobnicate' not found.\n"]);
  });

  it("no command, an unknown command and an unknown option exit 64", async () => {
    const [none, cmd, opt] = await Promise.all([run([]), run(["list_frobs"]), run(["list_users", "--frob"])]);
    assert.equal(none.code, 64);
    assert.ok(none.stderr.includes("Available commands:"));
    assert.equal(cmd.code, 64);
    assert.ok(cmd.stderr.startsWith("\nCommand 'list_frobs' not found. \n"), cmd.stderr);
    assert.equal(opt.code, 64);
    assert.ok(opt.stderr.startsWith("Error (argument validation): Invalid options for this command:\nunknown option '--frob'\n"), opt.stderr);
  });

  it("an unreachable broker exits 69 and names the address", async () => {
    const port = await closedPort();
    const r = await run(["--port", String(port), "list_permissions"]);
    assert.equal(r.code, 69);
    assert.ok(r.stderr.startsWith(`Error:\nCould not connect to the broker at 127.0.0.1:${port} (`), r.stderr);
    const viaEnv = await run(["list_users"], { env: { CONEY_PORT: String(port), CONEY_HOST: "127.0.0.1" } });
    assert.ok(viaEnv.stderr.includes(`Could not connect to the broker at 127.0.0.1:${port}`));
  });

  it("CONEY_* variables give the address and credentials; flags win over them", async () => {
    const env = { CONEY_HOST: "127.0.0.1", CONEY_PORT: String(broker.httpPort), CONEY_USERNAME: "ops", CONEY_PASSWORD: "ops-pw" };
    const [ok, wrong, flagWins, node] = await Promise.all([
      run(["authenticate_user", "ops", "ops-pw"], { env }),
      run(["list_users"], { env: { ...env, CONEY_PASSWORD: "bad" } }),
      run(["list_users", "-q", "--password", "ops-pw"], { env: { ...env, CONEY_PASSWORD: "bad" } }),
      run(["-n", "rabbit@127.0.0.1", "list_vhosts", "-q"], { env: { CONEY_PORT: String(broker.httpPort) } }),
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(wrong.code, 69);
    assert.match(wrong.stderr, new RegExp(`^Error:\\nCould not authenticate to the broker at 127\\.0\\.0\\.1:${broker.httpPort} as user "ops": `));
    assert.equal(flagWins.code, 0, flagWins.stderr);
    assert.ok(flagWins.stdout.includes("ops\t[administrator]\n"));
    assert.deepEqual([node.code, node.stdout], [0, "name\n/\n"]);
  });

  it("--formatter json: ok and error results as JSON objects", async () => {
    const [ok, err] = await Promise.all([
      ctl(broker, ["set_permissions", "--formatter", "json", "ops", ".*", ".*", ".*"]),
      ctl(broker, ["list_user_permissions", "nobody", "--formatter", "json"]),
    ]);
    assert.deepEqual([ok.code, JSON.parse(ok.stdout)], [0, { result: "ok" }]);
    assert.deepEqual([err.code, err.stdout, JSON.parse(err.stderr)], [67, "", { result: "error", message: "User nobody does not exist" }]);
  });

  it("status prints rabbitmqctl's sections from the live node", async () => {
    const [text, json] = await Promise.all([ctl(broker, ["status"]), ctl(broker, ["status", "--formatter", "json"])]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^Status of node \S+ \.\.\.\nRuntime\n\nOS PID: \d+\n/);
    assert.ok(text.stdout.includes(`Interface: 127.0.0.1, port: ${broker.amqpPort}, protocol: amqp, purpose: AMQP 0-9-1\n`), text.stdout);
    assert.ok(text.stdout.includes("\nAlarms\n") && text.stdout.includes("\nVirtual host count: 1\n"));
    const doc = JSON.parse(json.stdout) as { overview: { node: string }; node: { os_pid: string } };
    assert.equal(doc.node.os_pid, String(process.pid));
  });

  it("await_startup returns at once for a running broker, waits for one that starts later, gives up with 69", async () => {
    const up = await ctl(broker, ["await_startup"]);
    assert.deepEqual(up, { code: 0, stdout: "", stderr: "" });

    const dead = await closedPort();
    const started = Date.now();
    const gaveUp = await run(["--port", String(dead), "await_startup", "--timeout", "1"]);
    assert.equal(gaveUp.code, 69);
    assert.ok(Date.now() - started >= 1000, "it waited for the timeout");
    assert.ok(gaveUp.stderr.includes(`Could not connect to the broker at 127.0.0.1:${dead}`));

    const port = await closedPort();
    const waiting = run(["--port", String(port), "await_startup", "--timeout", "20"]);
    const dataDir = mkdtempSync(join(tmpdir(), "coneyctl-await-"));
    const late = await startTestBroker({ httpPort: port, dataDir });
    try {
      assert.deepEqual(await waiting, { code: 0, stdout: "", stderr: "" });
    } finally {
      await late.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
