// Web STOMP: @stomp/stompjs over a WebSocket (ws) to /ws exchanging with amqplib, and the
// management API's "Web STOMP 1.2"; other paths are 404.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { Client, type IMessage } from "@stomp/stompjs";
import WebSocket from "ws";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("Web STOMP with @stomp/stompjs", () => {
  let broker: TestBroker;
  let url: string;
  let conn: ChannelModel;
  const clients: Client[] = [];
  const api = apiClient(() => broker.httpUrl);

  function connectClient(login = "guest", passcode = "guest"): Promise<Client> {
    return withTimeout(
      new Promise<Client>((resolve, reject) => {
        const c = new Client({
          webSocketFactory: () => new WebSocket(url, ["v12.stomp", "v11.stomp", "v10.stomp"]),
          connectHeaders: { login, passcode, host: "/" },
          reconnectDelay: 0,
          heartbeatIncoming: 0,
          heartbeatOutgoing: 0,
          onConnect: () => resolve(c),
          onStompError: (f) => reject(new Error(`${f.headers["message"]}: ${f.body}`)),
        });
        clients.push(c);
        c.activate();
      }),
      5000,
      "a stompjs connection",
    );
  }

  before(async () => {
    broker = await startTestBroker({ webStompPort: 0 });
    url = `ws://127.0.0.1:${broker.webStompPort}/ws`;
    conn = await amqp.connect(broker.amqpUrl);
  });
  after(async () => {
    for (const c of clients) await c.deactivate();
    await conn.close();
    await broker.close();
  });

  it("a browser-style client and an AMQP service exchange messages both ways", async () => {
    const client = await connectClient();
    const ch = await conn.createChannel();
    const got = new Promise<IMessage>((resolve) => client.subscribe("/queue/to-web", (m) => resolve(m), { ack: "auto" }));
    await eventually(() => broker.broker.vhosts.get("/")!.queues.get("to-web")?.consumerCount === 1, 5000, "the subscription");
    ch.sendToQueue("to-web", Buffer.from("hello browser"), { headers: { from: "amqp" } });
    const m = await withTimeout(got, 5000, "a MESSAGE");
    assert.equal(m.body, "hello browser");
    assert.equal(m.headers["from"], "amqp");
    await ch.assertQueue("from-web", { durable: true });
    client.publish({ destination: "/queue/from-web", body: "hello service", headers: { "content-type": "text/plain" } });
    let back: amqp.GetMessage | false = false;
    await eventually(async () => (back = await ch.get("from-web", { noAck: true })) !== false, 5000, "the AMQP side");
    const b = back as unknown as amqp.GetMessage;
    assert.equal(b.content.toString(), "hello service");
    assert.equal(b.properties.contentType, "text/plain");
    await ch.close();
  });

  it("client acks over WebSocket, binary bodies, and the API lists Web STOMP 1.2", async () => {
    const client = await connectClient();
    const ch = await conn.createChannel();
    await ch.assertQueue("web-acks", { durable: false });
    ch.sendToQueue("web-acks", Buffer.from([0, 1, 2, 255]));
    const m = await withTimeout(new Promise<IMessage>((resolve) => client.subscribe("/amq/queue/web-acks", (x) => resolve(x), { ack: "client-individual" })), 5000, "a MESSAGE");
    assert.deepEqual([...m.binaryBody], [0, 1, 2, 255]);
    assert.equal(broker.broker.vhosts.get("/")!.queues.get("web-acks")!.unacked, 1);
    m.ack();
    await eventually(() => broker.broker.vhosts.get("/")!.queues.get("web-acks")!.unacked === 0, 5000, "the ACK");
    const list = (await api("GET", "/api/connections")).json as Array<{ protocol: string }>;
    assert.ok(list.some((c) => c.protocol === "Web STOMP 1.2"), JSON.stringify(list.map((c) => c.protocol)));
    await ch.close();
  });

  it("refuses bad credentials with an ERROR frame; other paths are 404", async () => {
    await assert.rejects(connectClient("guest", "wrong"), /Bad CONNECT: Access refused for user 'guest'/);
    const res = await fetch(`http://127.0.0.1:${broker.webStompPort}/other`);
    assert.equal(res.status, 404);
  });
});
