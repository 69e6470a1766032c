// rabbitmq.conf (RabbitMQ's sysctl-style format) read as Coney settings: each mapped key, the
// units and special values RabbitMQ accepts, the keys Coney does not support, and bad values.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { totalmem, tmpdir } from "node:os";
import { join } from "node:path";
import { isRabbitConf, parseBytes, readRabbitConf } from "../../src/config/rabbitmq-conf.js";
import { loadConfig, loadConfigWithWarnings } from "../../src/config/load-config.js";

const DEFAULTS = { loopbackUsers: ["guest"] };
const read = (text: string) => readRabbitConf(text, DEFAULTS);

describe("rabbitmq.conf", () => {
  it("maps listeners, users, vhost, limits and names", () => {
    const { settings, unsupported } = read(`
# a RabbitMQ user's file
listeners.tcp.default = 5673
listeners.ssl.default = 5674
default_user = admin
default_pass = "s3cret = yes"
default_vhost = prod
heartbeat = 30
frame_max = 65536
channel_max = 100
max_message_size = 1048576
cluster_name = coney-prod
management.tcp.port = 15673
load_definitions = /etc/rabbitmq/definitions.json
`);
    assert.deepEqual(settings, {
      amqpPort: 5673,
      amqpsPort: 5674,
      defaultUser: "admin",
      defaultPass: "s3cret = yes",
      defaultVhost: "prod",
      heartbeat: 30,
      frameMax: 65536,
      channelMax: 100,
      maxMessageSize: 1048576,
      clusterName: "coney-prod",
      httpPort: 15673,
      httpTls: false,
      loadDefinitions: "/etc/rabbitmq/definitions.json",
    });
    assert.deepEqual(unsupported, []);
  });

  it("reads loopback_users as RabbitMQ does: per user, or none", () => {
    assert.deepEqual(read("loopback_users.guest = false").settings.loopbackUsers, []);
    assert.deepEqual(read("loopback_users.guest = true\nloopback_users.ops = true").settings.loopbackUsers, ["guest", "ops"]);
    assert.deepEqual(read("loopback_users = none").settings.loopbackUsers, []);
    assert.equal(read("heartbeat = 5").settings.loopbackUsers, undefined);
  });

  it("reads sizes with RabbitMQ's units, and relative limits against total memory", () => {
    assert.equal(parseBytes("1GB"), 1e9);
    assert.equal(parseBytes("500MB"), 5e8);
    assert.equal(parseBytes("2GiB"), 2 * 1024 ** 3);
    assert.equal(parseBytes("512M"), 512 * 1024 ** 2);
    assert.equal(parseBytes("50000000"), 50_000_000);
    assert.equal(parseBytes("12 parsecs"), null);
    assert.equal(read("disk_free_limit.absolute = 1GB").settings.diskFreeLimit, 1e9);
    assert.equal(read("disk_free_limit.relative = 1.5").settings.diskFreeLimit, Math.round(1.5 * totalmem()));
    assert.equal(read("vm_memory_high_watermark.relative = 0.6").settings.memHighWatermark, 0.6);
    assert.equal(read("vm_memory_high_watermark.absolute = 1GB").settings.memHighWatermark, 1e9 / totalmem());
  });

  it("maps TLS, the management listener's address and TLS, OAuth 2.0 and log levels", () => {
    const { settings, unsupported } = read(`
listeners.tcp.default = 127.0.0.1:5672
management.tcp.ip = 127.0.0.1
ssl_options.certfile = /certs/server.pem
ssl_options.keyfile = /certs/server.key
ssl_options.cacertfile = /certs/ca.pem
ssl_options.verify = verify_peer
ssl_options.fail_if_no_peer_cert = true
management.ssl.port = 15671
management.ssl.certfile = /certs/server.pem
auth_oauth2.resource_server_id = rabbitmq
auth_oauth2.jwks_url = https://idp.example/jwks
auth_oauth2.signing_keys.key-1 = /keys/key-1.pem
auth_oauth2.signing_keys.key-2 = /keys/key-2.pem
log.console = true
log.console.level = warning
log.file = false
`);
    assert.equal(settings.bind, "127.0.0.1");
    assert.equal(settings.amqpPort, 5672);
    assert.equal(settings.tlsCert, "/certs/server.pem");
    assert.equal(settings.tlsKey, "/certs/server.key");
    assert.equal(settings.tlsCa, "/certs/ca.pem");
    assert.equal(settings.tlsVerifyPeer, true);
    assert.equal(settings.httpPort, 15671);
    assert.equal(settings.httpTls, true);
    assert.equal(settings.oauthResourceServerId, "rabbitmq");
    assert.equal(settings.oauthJwksUrl, "https://idp.example/jwks");
    assert.deepEqual(settings.oauthKeyFiles, ["key-1=/keys/key-1.pem", "key-2=/keys/key-2.pem"]);
    assert.equal(settings.logLevel, "warn");
    assert.deepEqual(unsupported, []);
    assert.equal(read("log.file.level = none").settings.logLevel, "silent");
    assert.equal(read("log.console.formatter = plaintext").settings.logFormat, "text");
    assert.equal(read("log.console.formatter = json").settings.logFormat, "json");
    assert.throws(() => read("log.console.formatter = xml"), /plaintext or json/);
    assert.equal(read("management.load_definitions = /d.json").settings.loadDefinitions, "/d.json");
  });

  it("names every key it does not support, and the combinations Coney cannot honour", () => {
    const { unsupported } = read(`
listeners.tcp.default = 127.0.0.1:5672
management.tcp.ip = 0.0.0.0
collect_statistics_interval = 10000
cluster_formation.peer_discovery_backend = classic_config
ssl_options.certfile = /a.pem
management.ssl.certfile = /b.pem
ssl_options.verify = verify_peer
log.file = /var/log/rabbitmq/rabbit.log
`);
    assert.deepEqual(unsupported, [
      "collect_statistics_interval",
      "cluster_formation.peer_discovery_backend",
      "log.file",
      "management.tcp.ip (Coney binds every listener to one address, 127.0.0.1)",
      "ssl_options.verify = verify_peer without ssl_options.fail_if_no_peer_cert = true",
      "management.ssl.certfile (a different file from ssl_options: Coney uses one certificate)",
    ]);
  });

  it("refuses a bad line or value, naming the line", () => {
    assert.throws(() => read("heartbeat = 10\nlisteners.tcp.default"), /line 2: expected 'key = value'/);
    assert.throws(() => read("heartbeat = soon"), /line 1: heartbeat = soon: not a non-negative integer/);
    assert.throws(() => read("disk_free_limit.absolute = lots"), /not a size/);
    assert.throws(() => read("loopback_users.guest = maybe"), /not true or false/);
    assert.throws(() => read("log.console.level = chatty"), /not a log level/);
    assert.throws(() => read("listeners.tcp.default = 99999"), /not a port number/);
  });

  it("is told from JSON by extension, else by content; --config reads either", () => {
    assert.equal(isRabbitConf("/etc/rabbitmq/rabbitmq.conf", "{"), true);
    assert.equal(isRabbitConf("coney.json", "heartbeat = 1"), false);
    assert.equal(isRabbitConf("coney.cfg", '{"heartbeat": 1}'), false);
    assert.equal(isRabbitConf("coney.cfg", "heartbeat = 1"), true);
    const dir = mkdtempSync(join(tmpdir(), "coney-conf-"));
    try {
      const conf = join(dir, "rabbitmq.conf");
      writeFileSync(conf, "heartbeat = 7\nmanagement.tcp.port = 15999\nvm_memory_calculation_strategy = rss\n");
      const loaded = loadConfigWithWarnings(["--config", conf, "--heartbeat", "9"], {});
      assert.equal(loaded.config.heartbeat, 9, "flags still win over the file");
      assert.equal(loaded.config.httpPort, 15999);
      assert.equal(loaded.config.configFile, conf);
      assert.deepEqual(loaded.unsupported, ["vm_memory_calculation_strategy"]);
      const json = join(dir, "coney.json");
      writeFileSync(json, JSON.stringify({ heartbeat: 11 }));
      assert.equal(loadConfig(["--config", json], {}).heartbeat, 11);
      writeFileSync(conf, "heartbeat = x\n");
      assert.throws(() => loadConfig(["--config", conf], {}), new RegExp(`config file ${conf}: line 1: heartbeat = x`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
