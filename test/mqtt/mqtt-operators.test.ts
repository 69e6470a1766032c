// MQTT for operators: Prometheus with RabbitMQ's protocol labels (rabbitmq_global_* per mqtt310 /
// mqtt311 / mqtt50 beside amqp091, which no longer counts MQTT traffic; auth attempts under
// "mqtt"), and coneyctl list_mqtt_connections / list_connections / close_connection on MQTT
// connections, with real mqtt.js and amqplib clients and the real coneyctl.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { ctl } from "../cli/run-coneyctl.js";
import { connackCode, waitUntil, useMqttClients } from "../helpers/mqtt-client.js";
import { startMetricsBroker, valueOf, type MetricsBroker } from "../metrics/metrics-fixture.js";

describe("MQTT in Prometheus and coneyctl", () => {
  let broker: MetricsBroker;
  let url: string;
  const mqtt = useMqttClients(() => url);
  const open = mqtt.open;

  before(async () => {
    broker = await startMetricsBroker({ mqttPort: 0 });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
  });
  after(async () => {
    await broker.close();
  });

  it("counts MQTT traffic per protocol version under RabbitMQ's labels, and AMQP's apart", async () => {
    const before = await broker.scrape();
    for (const label of ["mqtt310", "mqtt311", "mqtt50"]) assert.equal(valueOf(before, "rabbitmq_global_messages_received_total", { protocol: label }), 0, label);
    const sub = await open({ protocolVersion: 5, clientId: "metrics-sub" });
    await sub.client.subscribeAsync("m/#", { qos: 1 });
    const pub = await open({ clientId: "metrics-pub" });
    for (let i = 0; i < 3; i++) await pub.client.publishAsync("m/t", `m${i}`, { qos: 1 });
    await pub.client.publishAsync("nobody/here", "lost", { qos: 0 });
    await sub.waitFor(3);
    const conn = await amqp.connect(broker.amqpUrl);
    try {
      const ch = await conn.createConfirmChannel();
      ch.publish("amq.topic", "m.amqp", Buffer.from("from amqp"), { persistent: true });
      await ch.waitForConfirms();
      await sub.waitFor(4);
    } finally {
      await conn.close();
    }
    await waitUntil(() => broker.broker.stats.protocol("mqtt50").ack === 4);
    const m = await broker.scrape();
    const v = (name: string, protocol: string): number => valueOf(m, `rabbitmq_global_${name}`, { protocol });
    assert.equal(v("messages_received_total", "mqtt311"), 4);
    assert.equal(v("messages_received_confirm_total", "mqtt311"), 3);
    assert.equal(v("messages_routed_total", "mqtt311"), 3);
    assert.equal(v("messages_unroutable_dropped_total", "mqtt311"), 1);
    assert.equal(v("messages_confirmed_total", "mqtt311"), 3);
    assert.equal(v("publishers", "mqtt311"), 1);
    assert.equal(v("consumers", "mqtt311"), 0);
    assert.equal(v("consumers", "mqtt50"), 1);
    assert.equal(v("messages_delivered_total", "mqtt50"), 4);
    assert.equal(v("messages_delivered_consume_manual_ack_total", "mqtt50"), 4);
    assert.equal(v("messages_acknowledged_total", "mqtt50"), 4);
    assert.equal(v("messages_received_total", "amqp091"), 1, "the AMQP publish only");
    assert.equal(v("messages_confirmed_total", "amqp091"), 1);
    assert.equal(v("messages_delivered_total", "amqp091"), 0, "the MQTT deliveries are not AMQP's");
    assert.equal(v("consumers", "amqp091"), 0);
    assert.equal(v("messages_received_total", "mqtt310"), 0);
    assert.equal(valueOf(m, "rabbitmq_connections"), 2, "MQTT connections count among the node's connections");
  });

  it("counts MQTT logins under protocol mqtt in rabbitmq_auth_attempts_*", async () => {
    assert.equal(await connackCode(url, { protocolVersion: 4, clientId: "bad-login", username: "guest", password: "wrong" }), 4);
    const m = await broker.scrape();
    assert.ok(valueOf(m, "rabbitmq_auth_attempts_succeeded_total", { protocol: "mqtt" }) >= 2);
    assert.ok(valueOf(m, "rabbitmq_auth_attempts_failed_total", { protocol: "mqtt" }) >= 1);
  });

  it("coneyctl list_mqtt_connections lists client ids (rabbitmqctl's default columns), list_connections shows them too, close_connection closes one", async () => {
    const v5 = await open({ protocolVersion: 5, clientId: "ctl-target" });
    const list = await ctl(broker, ["list_mqtt_connections", "-q"]);
    assert.equal(list.code, 0, list.stderr);
    const rows = list.stdout.trim().split("\n");
    assert.equal(rows[0], "client_id\tconn_name");
    const row = rows.find((r) => r.startsWith("ctl-target\t"));
    assert.ok(row, list.stdout);
    const name = row.split("\t")[1]!;
    const cols = await ctl(broker, ["list_mqtt_connections", "-q", "--no-table-headers", "client_id,protocol,user,vhost,connection_state"]);
    assert.ok(cols.stdout.includes("ctl-target\tMQTT 5-0\tguest\t/\trunning\n"), cols.stdout);
    const bad = await ctl(broker, ["list_mqtt_connections", "clean_sess"]);
    assert.equal(bad.code, 64);
    const all = await ctl(broker, ["list_connections", "-q", "--no-table-headers", "protocol", "client_properties"]);
    assert.ok(all.stdout.includes('MQTT 5-0\t{"client_id":"ctl-target"}'), all.stdout);
    const disconnect = new Promise<number | undefined>((resolve) => v5.client.once("disconnect", (p) => resolve(p.reasonCode)));
    const closed = await ctl(broker, ["close_connection", name, "maintenance"]);
    assert.equal(closed.code, 0, closed.stderr);
    assert.equal(await disconnect, 0x98);
    await waitUntil(() => !broker.broker.connections.get(name));
  });
});
