// The client ports a cluster node serves (src/cluster/client-ports.ts), as pure functions of the
// configuration: which are on, which need the node's certificate, that a port once bound is kept,
// and that the leader's broker is told to bind exactly the ports its front held.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { defaultConfig, type ConeyConfig } from "../../src/config/config.js";
import { CLIENT_PORTS, configuredPort, leaderPortSettings, wantedPorts } from "../../src/cluster/client-ports.js";

const config = (over: Partial<ConeyConfig>): ConeyConfig => ({ ...defaultConfig(), ...over });

describe("client ports", () => {
  it("lists every configured port, AMQP first; TLS ports only with a certificate; a port turned off is left out", () => {
    const plain = config({ mqttPort: 0, stompPort: null, webMqttPort: 15675, webStompPort: 15674 });
    assert.deepEqual(
      wantedPorts(plain, {}).map(([kind]) => kind),
      ["amqp", "http", "mqtt", "webMqtt", "webStomp"],
    );
    assert.equal(configuredPort(plain, "mqtts"), null, "no MQTTS without --tls-cert");
    const withTls = config({ tlsCert: "c.pem", tlsKey: "k.pem", webMqttsPort: 15676 });
    assert.deepEqual(
      wantedPorts(withTls, {}).map(([kind]) => kind),
      ["amqp", "amqps", "http", "mqtt", "mqtts", "webMqtt", "webMqtts", "stomp", "stomps", "webStomp"],
    );
    assert.equal(configuredPort(withTls, "stomps"), 61614);
  });

  it("keeps a port once bound (an ephemeral one stays this node's) and hands the leader's broker the same", () => {
    const c = config({ mqttPort: 0, stompPort: 0, webMqttPort: null, webStompPort: null, httpPort: null });
    const bound = { amqp: 40001, mqtt: 40002 };
    assert.deepEqual(wantedPorts(c, bound), [["amqp", 40001], ["mqtt", 40002], ["stomp", 0]]);
    assert.deepEqual(leaderPortSettings(bound), { amqpPort: 40001, mqttPort: 40002 });
  });

  it("names each port as the leader's broker names the same listener", () => {
    assert.deepEqual(
      Object.values(CLIENT_PORTS).map((p) => p.protocol),
      ["amqp", "amqp/ssl", "http", "mqtt", "mqtt/ssl", "http/web-mqtt", "https/web-mqtt", "stomp", "stomp/ssl", "http/web-stomp"],
    );
  });
});
