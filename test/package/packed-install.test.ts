// The package as a user receives it (issue 46): `npm pack`, installed into a fresh project from
// the tarball, then the bins and both entry points run from there — so a file missing from
// `files`, a dependency needed at run time but declared for development only, or a broken
// `exports` entry fails here instead of on a user's machine. The project installs from the
// registry through npm's cache (`--prefer-offline`: a CI run that just ran `npm ci` has every
// package in it), and gets no etcd3 or gRPC: clustering is an optional peer.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import amqp from "amqplib";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const exec = promisify(execFile);
const npm = (args: string[], cwd: string) => exec("npm", args, { cwd, maxBuffer: 16 << 20, env: { ...process.env, npm_config_update_notifier: "false" } });

/** Lines of a child's output, waited on until one matches. */
function waitForLine(child: ChildProcessWithoutNullStreams, test: (line: string) => boolean, what: string): Promise<string> {
  let seen = "";
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what}: not within 30 s; output:\n${seen}`)), 30_000);
    const onData = (d: Buffer): void => {
      seen += d.toString();
      const line = seen.split("\n").find(test);
      if (line !== undefined) {
        clearTimeout(t);
        resolve(line);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${what}: exited ${code}; output:\n${seen}`)));
  });
}

async function roundTrip(url: string, queue: string): Promise<string> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    await ch.assertQueue(queue);
    ch.sendToQueue(queue, Buffer.from(`via ${queue}`));
    await ch.close();
    const ch2 = await conn.createChannel();
    for (let i = 0; i < 100; i++) {
      const m = await ch2.get(queue, { noAck: true });
      if (m !== false) return m.content.toString();
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`nothing came back from ${queue}`);
  } finally {
    await conn.close();
  }
}

describe("the packed package, installed into a fresh project", { timeout: 180_000 }, () => {
  let work = "";
  let project = "";
  const children: ChildProcessWithoutNullStreams[] = [];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "coney-packed-"));
    // dist/ is built by `npm test` before this runs; --ignore-scripts skips `prepare` rebuilding it.
    const { stdout } = await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], root);
    const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    assert.ok(!packed.files.some((f) => f.path.endsWith(".js.map") || f.path.startsWith("src/") || f.path.startsWith("test/")), "the tarball holds only what runs");
    project = join(work, "app");
    await exec("mkdir", ["-p", project]);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", type: "module", private: true }));
    await npm(["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, packed.filename)], project);
  });

  after(() => {
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      try {
        process.kill(-c.pid!, "SIGKILL");
      } catch {
        c.kill("SIGKILL");
      }
    }
    if (work !== "") rmSync(work, { recursive: true, force: true });
  });

  it("installs no cluster stack (etcd3, gRPC, protobufjs) for a project that does not cluster", () => {
    const modules = readdirSync(join(project, "node_modules"));
    for (const heavy of ["etcd3", "@grpc", "protobufjs"]) assert.ok(!modules.includes(heavy), `${heavy} was installed`);
    assert.ok(existsSync(join(project, "node_modules", "coney", "dist", "src", "index.d.ts")), "types are shipped");
  });

  it("npx coney serves AMQP and /api/overview, and npx coneyctl lists its queues", async () => {
    const dataDir = join(work, "data");
    // Its own process group: npx runs coney as a child of its own, and the stop must reach both.
    const child = spawn("npx", ["--no-install", "coney", "--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stream-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir], { cwd: project, detached: true });
    children.push(child);
    const started = JSON.parse(await waitForLine(child, (l) => l.includes('"Coney started"'), "npx coney")) as { amqp_port: number; http_port: number };
    assert.equal(await roundTrip(`amqp://guest:guest@127.0.0.1:${started.amqp_port}`, "packed-q"), "via packed-q");
    const overview = (await (await fetch(`http://127.0.0.1:${started.http_port}/api/overview`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } })).json()) as { product_name: string };
    assert.equal(overview.product_name, "Coney");
    const { stdout } = await exec("npx", ["--no-install", "coneyctl", "--host", "127.0.0.1", "--port", String(started.http_port), "list_queues", "name", "messages"], { cwd: project });
    assert.match(stdout, /packed-q\s+0/);
    const exited = new Promise((resolve) => child.on("exit", resolve));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  });

  it("import { startBroker } from \"coney\" and import { startTestBroker } from \"coney/testing\" work with a real client", async () => {
    writeFileSync(
      join(project, "start.mjs"),
      `import { startBroker } from "coney";
import { startTestBroker } from "coney/testing";
const broker = await startBroker({ amqpPort: 0, httpPort: null, prometheusPort: null, mqttPort: null, webMqttPort: null, streamPort: null, stompPort: null, webStompPort: null, bind: "127.0.0.1", inMemory: true, logLevel: "silent" });
const test = await startTestBroker();
console.log(JSON.stringify({ broker: "amqp://guest:guest@127.0.0.1:" + broker.amqpPort, test: test.amqpUrl }));
process.stdin.resume();
process.stdin.on("end", async () => { await broker.close(); await test.close(); });
`,
    );
    const child = spawn(process.execPath, ["start.mjs"], { cwd: project });
    children.push(child);
    const urls = JSON.parse(await waitForLine(child, (l) => l.startsWith("{"), "start.mjs")) as { broker: string; test: string };
    assert.equal(await roundTrip(urls.broker, "embedded-q"), "via embedded-q");
    assert.equal(await roundTrip(urls.test, "testing-q"), "via testing-q");
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.stdin.end();
    await exited;
  });
});
