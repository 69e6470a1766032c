// Publisher confirms, transactions and direct reply-to.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mustGet } from "../helpers/amqplib-get.js";
import { txRpc as rpc } from "../helpers/amqplib-tx.js";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { withTimeout } from "../helpers/wait.js";

describe("confirms, transactions, direct reply-to", () => {
  const f = useBrokerWithConnection();


  it("confirms every publish, including unroutable ones", async () => {
    const ch = await f.conn.createConfirmChannel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    const acks: Array<Promise<void>> = [];
    for (let i = 0; i < 500; i++) {
      acks.push(new Promise((resolve, reject) => ch.sendToQueue(queue, Buffer.from(String(i)), {}, (err) => (err ? reject(err) : resolve()))));
    }
    acks.push(new Promise((resolve, reject) => ch.publish("amq.direct", "nowhere", Buffer.from("u"), {}, (err) => (err ? reject(err) : resolve()))));
    await withTimeout(Promise.all(acks), 5000, "501 confirms");
    assert.equal((await ch.checkQueue(queue)).messageCount, 500);
    await ch.close();
  });

  it("tx: publishes and acks take effect on commit, vanish on rollback", async () => {
    const ch = await f.conn.createChannel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    const tx = await f.conn.createChannel();
    // amqplib's promise API has no tx helpers; its generic rpc() sends the methods.
    await rpc(tx, "txSelect");
    tx.sendToQueue(queue, Buffer.from("a"));
    assert.equal((await ch.checkQueue(queue)).messageCount, 0, "nothing before commit");
    await rpc(tx, "txCommit");
    assert.equal((await ch.checkQueue(queue)).messageCount, 1);
    tx.sendToQueue(queue, Buffer.from("b"));
    await rpc(tx, "txRollback");
    assert.equal((await ch.checkQueue(queue)).messageCount, 1, "rolled back publish never arrives");
    const m = (await mustGet(tx, queue));
    tx.ack(m);
    await rpc(tx, "txRollback");
    assert.equal((await ch.checkQueue(queue)).messageCount, 0, "the message is still unacked after rollback");
    tx.ack(m);
    await rpc(tx, "txCommit");
    await tx.close();
    assert.equal((await ch.checkQueue(queue)).messageCount, 0);
    await ch.close();
  });

  it("direct reply-to answers an RPC without a reply queue", async () => {
    const server = await f.conn.createChannel();
    const { queue } = await server.assertQueue("", { exclusive: true });
    await server.consume(queue, (m) => {
      server.sendToQueue(m!.properties.replyTo as string, Buffer.from(`re:${m!.content}`), { correlationId: m!.properties.correlationId });
    }, { noAck: true });
    const client = await f.conn.createChannel();
    let resolveReply!: (r: { body: string; cid: string }) => void;
    const reply = new Promise<{ body: string; cid: string }>((resolve) => (resolveReply = resolve));
    // consume-ok must have arrived before the request names amq.rabbitmq.reply-to (RabbitMQ's rule).
    await client.consume("amq.rabbitmq.reply-to", (m) => resolveReply({ body: m!.content.toString(), cid: m!.properties.correlationId }), { noAck: true });
    client.sendToQueue(queue, Buffer.from("ping"), { replyTo: "amq.rabbitmq.reply-to", correlationId: "42" });
    assert.deepEqual(await withTimeout(reply, 3000, "RPC reply"), { body: "re:ping", cid: "42" });
    await client.close();
    await server.close();
  });

  it("direct reply-to addresses every request, when requests repeat the same properties", async () => {
    // A channel shares one decoding among publishes with the same property bytes
    // (content-assembly.ts): addressing one request must not change the next one's properties.
    const server = await f.conn.createChannel();
    const { queue } = await server.assertQueue("", { exclusive: true });
    const client = await f.conn.createChannel();
    await client.consume("amq.rabbitmq.reply-to", () => undefined, { noAck: true });
    for (let i = 0; i < 3; i++) client.sendToQueue(queue, Buffer.from(`r${i}`), { replyTo: "amq.rabbitmq.reply-to", correlationId: "same" });
    client.sendToQueue(queue, Buffer.from("plain"), { correlationId: "same" });
    for (let i = 0; i < 3; i++) {
      const m = await mustGet(server, queue);
      assert.equal(m.content.toString(), `r${i}`);
      assert.match(String(m.properties.replyTo), /^amq\.rabbitmq\.reply-to\../, `request ${i} carries a reply address`);
    }
    const plain = await mustGet(server, queue);
    assert.equal(plain.properties.replyTo, undefined);
    assert.equal(plain.properties.correlationId, "same");
    await client.close();
    await server.close();
  });
});
