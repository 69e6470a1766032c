// SASL EXTERNAL on AMQPS (RabbitMQ 4's rabbit_auth_mechanism_ssl on the AMQP 1.0 side): a client
// with a verified certificate logs in as the certificate's distinguished name (ssl_cert_login_from),
// the login counts under auth protocol amqp10, and a certificate naming no user is refused.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import type { ConnectionOptions } from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { makeTestCa } from "../helpers/test-ca.js";
import { close, connect, data, openSender, refusedWith, sendAll } from "../helpers/rhea-client.js";

describe("AMQP 1.0 SASL EXTERNAL over TLS", () => {
  const ca = makeTestCa();
  let b: TestBroker;
  const tls = (): Partial<ConnectionOptions> =>
    ({
      port: b.amqpsPort!,
      transport: "tls",
      ca: readFileSync(ca.caCert),
      cert: readFileSync(ca.clientCert),
      key: readFileSync(ca.clientKey),
      servername: "localhost",
      enable_sasl_external: true,
      username: undefined,
      password: undefined,
    }) as Partial<ConnectionOptions>;

  before(async () => {
    b = await startTestBroker({ amqpsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, tlsVerifyPeer: true });
    b.broker.declareQueue({ permissions: b.broker.checkerFor("guest"), owner: null }, "/", { name: "by-cert", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await b?.close();
    rmSync(ca.dir, { recursive: true, force: true });
  });

  it("refuses a certificate that names no user", async () => {
    b.broker.authAttempts.reset();
    await refusedWith(b.amqpsPort!, tls());
    assert.equal(b.broker.connections.list().length, 0);
    assert.deepEqual(
      b.broker.authAttempts.list().map((r) => [r.protocol, r.auth_attempts_failed]),
      [["amqp10", 1]],
    );
  });

  it("logs a client in as its certificate's distinguished name, which then sends under its own permissions", async () => {
    b.broker.putUser("CN=client", { passwordHash: "", tags: [] });
    b.broker.setPermission("CN=client", "/", { configure: "", write: ".*", read: ".*" });
    const c = await connect(b.amqpsPort!, tls());
    try {
      const info = b.broker.connections.list().map((x) => x.info());
      assert.deepEqual(
        info.map((i) => [i.user, i.authMechanism, i.protocol]),
        [["CN=client", "EXTERNAL", "AMQP 1-0"]],
      );
      assert.deepEqual(
        (await sendAll(await openSender(c, "/queues/by-cert"), [{ body: data("signed") }])).map((o) => o.outcome),
        ["accepted"],
      );
    } finally {
      await close(c);
    }
  });
});
