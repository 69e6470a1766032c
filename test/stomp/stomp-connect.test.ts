// STOMP CONNECT over TCP against a real broker, byte for byte: login with the broker's users,
// host as vhost, version negotiation, heart-beats both ways, and RabbitMQ's ERROR frames; the
// connection as the management API lists it ("STOMP 1.2") and closes it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { StompWire } from "../helpers/stomp-wire.js";
import { eventually } from "../helpers/wait.js";

describe("STOMP CONNECT", () => {
  let broker: TestBroker;
  let port: number;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker({ stompPort: 0 });
    port = broker.stompPort!;
    broker.broker.putVhost("v2", {});
    broker.broker.putUser("alice", { password: "pw", tags: [] });
    broker.broker.setPermission("alice", "v2", { configure: ".*", write: ".*", read: ".*" });
  });
  after(async () => {
    await broker.close();
  });

  async function refused(headers: Record<string, string>): Promise<{ headers: Record<string, string>; body: string }> {
    const w = await StompWire.open(port);
    w.send("CONNECT", headers);
    const f = await w.next();
    assert.equal(f.command, "ERROR");
    await w.whenClosed();
    return { headers: f.headers, body: f.body.toString() };
  }

  it("refuses a bad passcode, an unknown vhost and a vhost the user may not use with RabbitMQ's texts", async () => {
    const bad = await refused({ "accept-version": "1.2", host: "/", login: "guest", passcode: "nope" });
    assert.equal(bad.headers["message"], "Bad CONNECT");
    assert.equal(bad.headers["version"], "1.0,1.1,1.2");
    assert.equal(bad.body, "Access refused for user 'guest'\n");
    const vhost = await refused({ "accept-version": "1.2", host: "nov", login: "guest", passcode: "guest" });
    assert.equal(vhost.body, "Virtual host 'nov' access denied");
    const denied = await refused({ "accept-version": "1.2", host: "/", login: "alice", passcode: "pw" });
    assert.equal(denied.body, "Virtual host '/' access denied");
    const attempts = broker.broker.authAttempts.list().find((a) => a.protocol === "stomp");
    assert.ok(attempts && attempts.auth_attempts_failed >= 1, JSON.stringify(attempts));
  });

  it("logs in with host as the vhost and negotiates the highest shared version (1.0 without accept-version)", async () => {
    const w = await StompWire.open(port);
    w.send("CONNECT", { "accept-version": "1.0,1.1", host: "v2", login: "alice", passcode: "pw" });
    const f = await w.next();
    assert.equal(f.command, "CONNECTED");
    assert.equal(f.headers["version"], "1.1");
    assert.match(f.headers["server"]!, /^Coney\//);
    assert.ok(f.headers["session"]!.startsWith("session-"));
    w.close();
    const old = await StompWire.open(port);
    old.send("STOMP", { login: "guest", passcode: "guest" });
    assert.equal((await old.next()).headers["version"], "1.0");
    old.close();
    const none = await refused({ "accept-version": "2.0", login: "guest", passcode: "guest" });
    assert.match(none.body, /Supported versions are 1.0,1.1,1.2/);
  });

  it("sends heart-beats at the client's wish and closes a client that stops sending them", async () => {
    const w = await StompWire.login(port, { "heart-beat": "0,50" });
    await eventually(() => w.heartbeats >= 2, 5000, "server heart-beats");
    w.close();
    const quiet = await StompWire.open(port);
    quiet.send("CONNECT", { "accept-version": "1.2", login: "guest", passcode: "guest", "heart-beat": "100,0" });
    const c = await quiet.next();
    assert.equal(c.headers["heart-beat"], "0,100");
    await quiet.whenClosed(5000);
  });

  it("answers a frame before CONNECT, an unknown command and a second CONNECT with ERROR and a close", async () => {
    const early = await StompWire.open(port);
    early.send("SEND", { destination: "/queue/x" }, "hi");
    const e = await early.next();
    assert.equal(e.headers["message"], "Illegal command");
    assert.equal(e.body.toString(), "You must log in using CONNECT first");
    await early.whenClosed();
    const w = await StompWire.login(port);
    w.send("FOO");
    const f = await w.next();
    assert.equal(f.headers["message"], "Bad command");
    assert.equal(f.body.toString(), 'Could not interpret command "FOO"\n');
    await w.whenClosed();
    const twice = await StompWire.login(port);
    twice.send("CONNECT", { login: "guest", passcode: "guest" });
    assert.equal((await twice.next()).command, "ERROR");
    await twice.whenClosed();
  });

  it("is listed by the management API as STOMP 1.2 with its user and vhost, and closed by it", async () => {
    const w = await StompWire.login(port, { host: "v2", login: "alice", passcode: "pw" });
    let conn: { name: string; protocol: string; user: string; vhost: string } | undefined;
    await eventually(async () => {
      const list = (await api("GET", "/api/connections")).json as Array<{ name: string; protocol: string; user: string; vhost: string }>;
      conn = list.find((c) => c.user === "alice");
      return conn !== undefined;
    });
    assert.equal(conn!.protocol, "STOMP 1.2");
    assert.equal(conn!.vhost, "v2");
    const del = await api("DELETE", `/api/connections/${encodeURIComponent(conn!.name)}`);
    assert.equal(del.status, 204);
    const f = await w.next();
    assert.equal(f.command, "ERROR");
    await w.whenClosed();
  });
});
