// Every transport takes its connection's peer facts from one place (src/auth/peer-address.ts): on
// a dual-stack listener ("::") an IPv4 client is shown as plain IPv4, as RabbitMQ unmaps
// "::ffff:" addresses, in the name, host and peer_host of AMQP, MQTT, Web MQTT and stream
// connections alike, and it counts as loopback (guest, a loopback user, logs in over each).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { useMqttClients } from "../helpers/mqtt-client.js";
import { eventually } from "../helpers/wait.js";
import { streamClient } from "../stream/stream-helpers.js";

interface ConnectionRow {
  readonly name: string;
  readonly protocol: string;
  readonly host: string;
  readonly peer_host: string;
  readonly user: string;
}

describe("peer addresses, the same for every protocol", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  const mqtt = useMqttClients(() => `mqtt://127.0.0.1:${broker.mqttPort}`);
  const closers: Array<() => Promise<unknown>> = [];

  before(async () => {
    broker = await startTestBroker({ bind: "::", mqttPort: 0, webMqttPort: 0, streamPort: 0 });
  });
  after(async () => {
    for (const close of closers) await close().catch(() => {});
    await broker?.close();
  });

  it("shows an IPv4 client of a dual-stack listener as plain IPv4 in every protocol's record", async () => {
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${broker.amqpPort}`);
    closers.push(() => conn.close());
    const stream = await streamClient({ streamPort: broker.streamPort! });
    closers.push(() => stream.close());
    await mqtt.open({ clientId: "peer-tcp" });
    await mqtt.connect(`ws://127.0.0.1:${broker.webMqttPort}/ws`, { clientId: "peer-ws" });

    const protocols = ["AMQP 0-9-1", "MQTT 3.1.1", "Web MQTT 3.1.1", "stream"];
    let records: ConnectionRow[] = [];
    await eventually(
      async () => {
        records = (await api("GET", "/api/connections")).json as ConnectionRow[];
        return records.length >= protocols.length;
      },
      10_000,
      "all four connections listed",
    );
    assert.deepEqual(records.map((r) => r.protocol).sort(), protocols);
    for (const r of records) {
      assert.equal(r.peer_host, "127.0.0.1", `${r.protocol} peer_host`);
      assert.equal(r.host, "127.0.0.1", `${r.protocol} host`);
      assert.match(r.name, /^127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+$/, `${r.protocol} name`);
      assert.equal(r.user, "guest");
    }
  });
});
