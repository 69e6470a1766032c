// Who an MQTT client is and where it lands, with mqtt.js: `vhost:user` split at the last colon,
// the mqtt_port_to_vhost_mapping global parameter (set over the HTTP API), topic permissions with
// {client_id}, {username} and {vhost} (write on publish, read on subscribe), and OAuth 2.0 tokens
// as the password (the token's scopes decide; a JWT-shaped password that is no valid token is still
// tried as a password; an expired token is refused; the connection ends when the token expires),
// and TLS client certificates as credentials (mqtt.ssl_cert_login, mqtt_default_vhosts).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { generate, parser, type IPublishPacket, type Packet } from "mqtt-packet";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connackCode, useMqttClients, waitUntil, type TestMqttClient } from "../helpers/mqtt-client.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { makeTestCa } from "../helpers/test-ca.js";

const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" };
const refusedWith = (code: number) => (e: unknown): boolean => (e as { code?: number }).code === code;

describe("MQTT logins, vhosts and topic permissions", () => {
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url);

  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
    const b = broker.broker;
    b.putVhost("site:north", {});
    b.putVhost("mapped", {});
    b.putUser("dev", { password: "pw", tags: [] });
    for (const v of ["/", "site:north", "mapped"]) b.setPermission("dev", v, { configure: ".*", write: ".*", read: ".*" });
    b.setTopicPermission("dev", "/", { exchange: "amq.topic", write: "^devices\\.{client_id}\\.", read: "^(devices\\.{client_id}\\.|users\\.{username}\\.)" });
    b.setTopicPermission("dev", "mapped", { exchange: "amq.topic", write: ".*", read: "^vhost\\.{vhost}\\." });
  });
  after(async () => {
    await broker.close();
  });

  const vhostOf = (clientId: string): string | undefined => broker.broker.connections.list().find((c) => c.info().clientProperties["client_id"] === clientId)?.info().vhost;

  it("splits vhost:user at the last colon, so a vhost may hold colons", async () => {
    await mqtt.open({ clientId: "colon", username: "site:north:dev", password: "pw" });
    assert.equal(vhostOf("colon"), "site:north");
    assert.equal(await connackCode(url, { protocolVersion: 4, clientId: "colon-2", username: "site:north:nobody", password: "pw" }), 4);
  });

  it("maps the listener's port to a vhost with mqtt_port_to_vhost_mapping; vhost:user still wins", async () => {
    const put = await fetch(`${broker.httpUrl}/api/global-parameters/mqtt_port_to_vhost_mapping`, {
      method: "PUT",
      headers: AUTH,
      body: JSON.stringify({ value: { [String(broker.mqttPort)]: "mapped", "1": "elsewhere" } }),
    });
    assert.ok(put.status === 201 || put.status === 204, String(put.status));
    try {
      await mqtt.open({ clientId: "by-port", username: "dev", password: "pw" });
      assert.equal(vhostOf("by-port"), "mapped");
      await mqtt.open({ clientId: "by-name", username: "/:dev", password: "pw" });
      assert.equal(vhostOf("by-name"), "/");
    } finally {
      await fetch(`${broker.httpUrl}/api/global-parameters/mqtt_port_to_vhost_mapping`, { method: "DELETE", headers: AUTH });
    }
    await mqtt.open({ clientId: "unmapped", username: "dev", password: "pw" });
    assert.equal(vhostOf("unmapped"), "/", "without the mapping, mqtt.vhost");
  });

  it("expands {client_id} in topic write patterns: a client publishes under its own id only", async () => {
    const c = await mqtt.open({ protocolVersion: 5, clientId: "dev-1", username: "dev", password: "pw" });
    await c.client.publishAsync("devices/dev-1/temp", "21", { qos: 1 });
    await assert.rejects(c.client.publishAsync("devices/dev-2/temp", "21", { qos: 1 }), refusedWith(0x87));
    const v3 = await mqtt.open({ clientId: "dev-3", username: "dev", password: "pw" });
    const closed = new Promise<void>((resolve) => v3.client.stream.once("close", () => resolve()));
    v3.client.publish("devices/dev-1/temp", "not mine", { qos: 1 });
    await closed;
  });

  it("expands {client_id}, {username} and {vhost} in topic read patterns on subscribe", async () => {
    const c = await mqtt.open({ protocolVersion: 5, clientId: "dev-9", username: "dev", password: "pw" });
    const granted = async (client: TestMqttClient, filters: Record<string, { qos: 0 | 1 }>): Promise<number[]> =>
      client.client.subscribeAsync(filters).then(
        (ok) => ok.map((g) => g.qos),
        (e: { packet?: { granted?: number[] } }) => e.packet?.granted ?? [],
      );
    assert.deepEqual(await granted(c, { "devices/dev-9/#": { qos: 1 }, "users/dev/inbox": { qos: 1 }, "devices/dev-8/#": { qos: 1 }, "users/other/inbox": { qos: 0 } }), [1, 1, 0x87, 0x87]);
    const m = await mqtt.open({ protocolVersion: 5, clientId: "dev-m", username: "mapped:dev", password: "pw" });
    assert.deepEqual(await granted(m, { "vhost/mapped/x": { qos: 0 }, "vhost/other/x": { qos: 0 } }), [0, 0x87]);
  });
  it("the permission explainer answers topic questions for an MQTT client id as the broker enforces them", async () => {
    const explain = async (params: Record<string, string>): Promise<Record<string, unknown>> => {
      const query = new URLSearchParams({ user: "dev", vhost: "/", resource: "exchange", name: "amq.topic", ...params });
      const res = await fetch(`${broker.httpUrl}/api/coney/explain-permission?${query.toString()}`, { headers: AUTH });
      assert.equal(res.status, 200);
      return (await res.json()) as Record<string, unknown>;
    };
    const own = await explain({ permission: "write", routing_key: "devices.dev-1.temp", client_id: "dev-1" });
    assert.equal(own["allowed"], true);
    assert.equal(own["decided_by"], "topic");
    assert.equal((own["checks"] as Array<{ topic_pattern?: string }>)[3]!.topic_pattern, "^devices\\.{client_id}\\.");
    const other = await explain({ permission: "write", routing_key: "devices.dev-1.temp", client_id: "dev-2" });
    assert.equal(other["allowed"], false);
    assert.equal(other["refusal"], "ACCESS_REFUSED - access to topic 'devices.dev-1.temp' in exchange 'amq.topic' in vhost '/' refused for user 'dev'");
    const noId = await explain({ permission: "write", routing_key: "devices.dev-1.temp" });
    assert.equal(noId["allowed"], false, "without a client id, {client_id} stays as written and matches nothing");
    const read = await explain({ permission: "read", routing_key: "users.dev.#" });
    assert.equal(read["allowed"], true);
  });
});

describe("MQTT with OAuth 2.0 tokens as passwords", () => {
  let oauth: OAuthFixture;
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url);

  before(async () => {
    oauth = oauthFixture();
    broker = await startTestBroker({ mqttPort: 0, ...oauth.config });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
  });
  after(async () => {
    await broker.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  const scopes = ["rabbitmq.configure:*/mqtt-subscription-*", "rabbitmq.write:*/*", "rabbitmq.read:*/*"];

  it("logs in with a token: the token names the user, its scopes decide, and packets sent right behind CONNECT are kept", async () => {
    const token = await oauth.sign({ scope: scopes, sub: "sensor-service" });
    const c = await mqtt.open({ protocolVersion: 5, clientId: "tok", username: "ignored", password: token });
    const record = broker.broker.connections.list().find((x) => x.info().clientProperties["client_id"] === "tok")!.info();
    assert.equal(record.user, "sensor-service");
    await c.client.subscribeAsync("tok/t", { qos: 1 });
    await c.client.publishAsync("tok/t", "by token", { qos: 1 });
    const [r] = await c.waitFor(1);
    assert.equal(r!.payload.toString(), "by token");
    const attempts = broker.broker.authAttempts.list().find((a) => a.protocol === "mqtt");
    assert.ok(attempts && attempts.auth_attempts_succeeded >= 1);
  });

  it("keeps the packets a client sends right behind its CONNECT while the token is verified", async () => {
    const token = await oauth.sign({ scope: scopes, sub: "pipeliner" });
    const socket = netConnect(broker.mqttPort!, "127.0.0.1");
    const got: Packet[] = [];
    const p = parser({ protocolVersion: 4 });
    p.on("packet", (x: Packet) => got.push(x));
    socket.on("data", (d) => p.parse(d));
    // CONNECT, SUBSCRIBE and PUBLISH in one write: the last two arrive before the login is decided.
    socket.write(
      Buffer.concat([
        generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clean: true, clientId: "pipelined", keepalive: 0, username: "x", password: Buffer.from(token) }),
        generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "pipe/t", qos: 1 }] }),
        generate({ cmd: "publish", topic: "pipe/t", payload: Buffer.from("early"), qos: 1, messageId: 2, dup: false, retain: false }),
      ]),
    );
    try {
      await waitUntil(() => got.some((x) => x.cmd === "publish"));
      assert.deepEqual(got.slice(0, 2).map((x) => x.cmd), ["connack", "suback"]);
      const delivered = got.find((x): x is IPublishPacket => x.cmd === "publish")!;
      assert.equal(delivered.payload.toString(), "early");
      assert.ok(got.some((x) => x.cmd === "puback" && x.messageId === 2));
    } finally {
      socket.destroy();
    }
  });

  it("refuses what the scopes do not grant: a subscription without configure on its queue", async () => {
    const token = await oauth.sign({ scope: ["rabbitmq.write:*/*", "rabbitmq.read:*/*"] });
    const c = await mqtt.open({ protocolVersion: 5, clientId: "tok-narrow", username: "x", password: token });
    await assert.rejects(c.client.subscribeAsync("narrow/t", { qos: 1 }), (e: unknown) => {
      assert.deepEqual((e as { packet?: { granted?: number[] } }).packet?.granted, [0x87]);
      return true;
    });
  });

  it("refuses an expired token and a token for another audience with 0x86 (3.1.1: 4)", async () => {
    const expired = await oauth.sign({ scope: scopes, expiresIn: -60 });
    assert.equal(await connackCode(url, { protocolVersion: 5, clientId: "tok-old", username: "x", password: expired }), 0x86);
    const foreign = await oauth.sign({ scope: scopes, aud: "someone-else" });
    assert.equal(await connackCode(url, { protocolVersion: 4, clientId: "tok-foreign", username: "x", password: foreign }), 4);
  });

  it("closes the connection when the token expires (MQTT 5: DISCONNECT 0xA0)", async () => {
    const token = await oauth.sign({ scope: scopes, expiresIn: 2 });
    const c = await mqtt.open({ protocolVersion: 5, clientId: "tok-short", username: "x", password: token });
    const disconnect = new Promise<number | undefined>((resolve) => c.client.once("disconnect", (p) => resolve(p.reasonCode)));
    assert.equal(await disconnect, 0xa0);
    await waitUntil(() => !broker.broker.connections.list().some((x) => x.info().clientProperties["client_id"] === "tok-short"));
  });

  it("still accepts an internal user's password when OAuth 2.0 is configured", async () => {
    const c = await mqtt.open({ clientId: "pw-user" });
    assert.equal(c.client.connected, true);
  });
});

describe("MQTT over TLS with client certificates (mqtt.ssl_cert_login)", () => {
  const ca = makeTestCa();
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url);
  const tlsOptions = () => ({ ca: readFileSync(ca.caCert), cert: readFileSync(ca.clientCert), key: readFileSync(ca.clientKey) });
  const userOf = (clientId: string) => broker.broker.connections.list().find((c) => c.info().clientProperties["client_id"] === clientId)?.info();

  before(async () => {
    broker = await startTestBroker({ mqttsPort: 0, amqpsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, tlsVerifyPeer: true, mqttSslCertLogin: true });
    url = `mqtts://127.0.0.1:${broker.mqttsPort}`;
    broker.broker.putVhost("certs", {});
    // ssl_cert_login_from = distinguished_name (RabbitMQ's default): the user is named by the subject.
    broker.broker.putUser("CN=client", { password: "not-used", tags: [] });
    broker.broker.setPermission("CN=client", "/", { configure: ".*", write: ".*", read: ".*" });
    broker.broker.setPermission("CN=client", "certs", { configure: ".*", write: ".*", read: ".*" });
  });
  after(async () => {
    await broker.close();
    rmSync(ca.dir, { recursive: true, force: true });
  });

  it("logs a client that sends no credentials in as its certificate's subject, without password", async () => {
    const c = await mqtt.open({ ...tlsOptions(), clientId: "by-cert", username: undefined, password: undefined });
    assert.equal(userOf("by-cert")?.user, "CN=client");
    assert.equal(userOf("by-cert")?.vhost, "/");
    await c.client.subscribeAsync("cert/t", { qos: 1 });
    await c.client.publishAsync("cert/t", "signed", { qos: 1 });
    assert.equal((await c.waitFor(1))[0]!.payload.toString(), "signed");
  });

  it("a user name and password, when given, take priority over the certificate", async () => {
    await mqtt.open({ ...tlsOptions(), clientId: "by-password" });
    assert.equal(userOf("by-password")?.user, "guest");
  });

  it("the mqtt_default_vhosts global parameter maps the certificate's name to a vhost", async () => {
    broker.broker.putGlobalParameter("mqtt_default_vhosts", { "CN=client": "certs" });
    try {
      await mqtt.open({ ...tlsOptions(), clientId: "cert-vhost", username: undefined, password: undefined });
      assert.equal(userOf("cert-vhost")?.vhost, "certs");
    } finally {
      broker.broker.deleteGlobalParameter("mqtt_default_vhosts");
    }
  });

  it("refuses a certificate whose name is no user (CONNACK 0x86)", async () => {
    broker.broker.deleteUser("CN=client");
    try {
      assert.equal(await connackCode(url, { ...tlsOptions(), protocolVersion: 5, clientId: "cert-unknown" }), 0x86);
    } finally {
      broker.broker.putUser("CN=client", { password: "not-used", tags: [] });
    }
  });
});
