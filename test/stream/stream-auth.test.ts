// Logins and permissions on the native stream port, with RabbitMQ's response codes: a wrong
// password is refused (AUTHENTICATION_FAILURE), a vhost without access is refused at Open
// (VIRTUAL_HOST_ACCESS_FAILURE); declare needs configure, publishing write, subscribing and
// offsets read (ACCESS_REFUSED), and a refused client leaves the node serving the others.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, rmSync } from "node:fs";
import { connect } from "rabbitmq-stream-js-client";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { makeTestCa } from "../helpers/test-ca.js";
import { FORWARDED_EXTERNAL, vouchForCertificate } from "../../src/auth/forwarded-certificate.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { RawStreamClient } from "./raw-stream-client.js";
import { startStreamBroker, streamClient } from "./stream-helpers.js";

/**
 * What rabbitmq-stream-js-client 1.0 reports when it cannot connect. A refused login throws inside
 * its socket handler (an unhandled rejection; the connect promise never settles), which the test
 * runner would count against the test, so the client runs in a child process that prints it; a
 * refused Open it only logs.
 */
async function clientFailure(port: number, user: string, password: string, vhost = "/"): Promise<string> {
  const script = `
    import { connect } from "rabbitmq-stream-js-client";
    // It reports a refused Open only in its log (and then waits forever): that line is the answer.
    const quiet = { debug(m) { if (String(m).startsWith("Open response: false")) report(m); }, info() {}, warn() {}, error() {} };
    const report = (e) => { console.log(e instanceof Error ? e.message : String(e)); process.exit(0); };
    process.on("unhandledRejection", report);
    setTimeout(() => report("no answer"), 5000);
    connect({ hostname: "127.0.0.1", port: ${port}, username: ${JSON.stringify(user)}, password: ${JSON.stringify(password)}, vhost: ${JSON.stringify(vhost)} }, quiet)
      .then(() => report("connected"), report);`;
  // Asynchronously: the broker answering it runs in this process.
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return stdout.trim();
}

describe("stream protocol logins and permissions", () => {
  let b: TestBroker & { streamPort: number };
  before(async () => {
    b = await startStreamBroker();
    b.broker.putUser("reader", { password: "pw", tags: [] });
    b.broker.setPermission("reader", "/", { configure: "^$", write: "^$", read: ".*" });
    b.broker.putUser("writer", { password: "pw", tags: [] });
    b.broker.setPermission("writer", "/", { configure: "^own-", write: ".*", read: "^$" });
    b.broker.putUser("nobody", { password: "pw", tags: [] });
    b.broker.putVhost("other", {});
  });
  after(async () => {
    await b?.close();
  });

  it("refuses a wrong password with AUTHENTICATION_FAILURE and closes", async () => {
    const c = await RawStreamClient.open(b.streamPort);
    c.send(new FrameWriter(0x11).u32(1).map([]).frame());
    await c.next(0x8011);
    c.send(new FrameWriter(0x13).u32(2).str("PLAIN").bytes(Buffer.from("\u0000guest\u0000wrong")).frame());
    const f = await c.next(0x8013);
    assert.equal(f.body.u32(), 2);
    assert.equal(f.body.u16(), 0x08);
    await c.whenClosed();
    assert.equal(await clientFailure(b.streamPort, "guest", "wrong"), "Unable Authenticate -> 8");
    const attempts = b.broker.authAttempts.list().find((a) => a.protocol === "stream");
    assert.ok(attempts && attempts.auth_attempts_failed >= 2);
  });

  it("refuses an unknown SASL mechanism with SASL_MECHANISM_NOT_SUPPORTED", async () => {
    const c = await RawStreamClient.open(b.streamPort);
    c.send(new FrameWriter(0x11).u32(1).map([]).frame());
    await c.next(0x8011);
    c.send(new FrameWriter(0x13).u32(2).str("EXTERNAL").bytes(Buffer.alloc(0)).frame());
    const f = await c.next(0x8013);
    f.body.u32();
    assert.equal(f.body.u16(), 0x07);
    c.close();
  });

  it("refuses Open of a vhost the user may not use, or that does not exist, with VIRTUAL_HOST_ACCESS_FAILURE", async () => {
    await assert.rejects(RawStreamClient.login(b.streamPort, "nobody", "pw", "/"), /open refused with 12/);
    await assert.rejects(RawStreamClient.login(b.streamPort, "guest", "guest", "no-such-vhost"), /open refused with 12/);
    assert.match(await clientFailure(b.streamPort, "nobody", "pw"), /^Open response: false/);
    assert.equal(await clientFailure(b.streamPort, "guest", "guest"), "connected");
  });

  it("needs configure to create, write to publish, read to subscribe and to query offsets", async () => {
    const admin = await streamClient(b);
    await admin.createStream({ stream: "perm-s" });
    const reader = await RawStreamClient.login(b.streamPort, "reader", "pw");
    const writer = await RawStreamClient.login(b.streamPort, "writer", "pw");
    const create = (corr: number): Buffer => new FrameWriter(0x0d).u32(corr).str("perm-new").map([]).frame();
    assert.equal((await reader.request(create, 0x0d)).code, 0x10);
    assert.equal((await writer.request((corr) => new FrameWriter(0x0d).u32(corr).str("own-s").map([]).frame(), 0x0d)).code, 0x01);
    assert.equal((await writer.request((corr) => new FrameWriter(0x0e).u32(corr).str("perm-s").frame(), 0x0e)).code, 0x10);
    const declare = (corr: number): Buffer => new FrameWriter(0x01).u32(corr).u8(0).str("").str("perm-s").frame();
    assert.equal((await reader.request(declare, 0x01)).code, 0x10);
    assert.equal((await writer.request(declare, 0x01)).code, 0x01);
    const subscribe = (corr: number): Buffer => new FrameWriter(0x07).u32(corr).u8(0).str("perm-s").u16(1).u16(10).map([]).frame();
    assert.equal((await writer.request(subscribe, 0x07)).code, 0x10);
    assert.equal((await reader.request(subscribe, 0x07)).code, 0x01);
    const query = (corr: number): Buffer => new FrameWriter(0x0b).u32(corr).str("ref").str("perm-s").frame();
    assert.equal((await writer.request(query, 0x0b)).code, 0x10);
    assert.equal((await reader.request(query, 0x0b)).code, 0x13);
    // Refusals closed nothing: both connections still answer.
    assert.equal(reader.closed || writer.closed, false);
    reader.close();
    writer.close();
    await admin.close();
  });
});

// Issue 48 (the client's suite logs in with EXTERNAL over TLS): SASL EXTERNAL on the stream TLS
// port logs a client in as the user its verified certificate names (ssl_cert_login_from, by
// default the distinguished name); offered only to a client with such a certificate.
describe("stream SASL EXTERNAL", () => {
  const ca = makeTestCa();
  let b: TestBroker;
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const tlsClient = (o: { cert: boolean; mechanism: "PLAIN" | "EXTERNAL"; username?: string; password?: string }) =>
    connect(
      {
        hostname: "127.0.0.1",
        port: b.streamTlsPort!,
        username: o.username ?? "",
        password: o.password ?? "",
        vhost: "/",
        heartbeat: 0,
        mechanism: o.mechanism,
        ssl: { ca: readFileSync(ca.caCert, "utf8"), ...(o.cert ? { cert: readFileSync(ca.clientCert, "utf8"), key: readFileSync(ca.clientKey, "utf8") } : {}) },
      },
      silent,
    );
  before(async () => {
    b = await startTestBroker({ streamPort: 0, streamTlsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, tlsVerifyPeer: true });
    b.broker.putUser("CN=client", { passwordHash: "", tags: [] });
    b.broker.setPermission("CN=client", "/", { configure: ".*", write: ".*", read: ".*" });
  });
  after(async () => {
    await b?.close();
    rmSync(ca.dir, { recursive: true, force: true });
  });

  it("logs a client in as its certificate's distinguished name", async () => {
    const client = await tlsClient({ cert: true, mechanism: "EXTERNAL" });
    try {
      await client.createStream({ stream: "by-certificate" });
      const conns = [...b.broker.connections.list()].map((c) => c.info());
      assert.deepEqual(conns.map((c) => c.user), ["CN=client"]);
    } finally {
      await client.close();
    }
  });

  it("refuses a login claiming a cluster node vouched for it, on a single node (no cluster secret)", async () => {
    const raw = await RawStreamClient.open(b.streamPort!);
    try {
      raw.send(new FrameWriter(0x11).u32(1).map([]).frame());
      await raw.next(0x8011);
      const vouched = vouchForCertificate(Buffer.alloc(0), "CN=client", true);
      raw.send(new FrameWriter(0x13).u32(2).str(FORWARDED_EXTERNAL).bytes(vouched).frame());
      const f = await raw.next(0x8013);
      f.body.u32();
      assert.equal(f.body.u16(), 0x08, "AUTHENTICATION_FAILURE");
    } finally {
      raw.close();
    }
  });

  it("offers EXTERNAL only to a client with a verified certificate", async () => {
    const raw = await RawStreamClient.open(b.streamPort!);
    try {
      raw.send(new FrameWriter(0x11).u32(1).map([]).frame());
      await raw.next(0x8011);
      raw.send(new FrameWriter(0x12).u32(2).frame());
      const f = await raw.next(0x8012);
      f.body.u32();
      assert.equal(f.body.u16(), 0x01);
      const n = f.body.u32();
      const mechanisms = Array.from({ length: n }, () => f.body.str());
      assert.deepEqual(mechanisms, ["PLAIN"]);
    } finally {
      raw.close();
    }
  });
});
