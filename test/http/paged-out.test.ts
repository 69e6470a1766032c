// Queue records show what the message store holds on disk only: messages_paged_out and
// message_bytes_paged_out, with the in-memory rest as messages_ram / message_bytes_ram.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

const IN_MEMORY = 10;
const BODY = Buffer.alloc(100, "p");

describe("paged-out figures on queue records", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker({ messageStore: { paging: { maxEntries: IN_MEMORY, maxBytes: 1024 * 1024 } } });
    conn = await amqp.connect(broker.amqpUrl);
  });
  after(async () => {
    await conn.close();
    await broker.close();
  });

  const queue = async (name: string) => (await api("GET", `/api/queues/%2f/${name}`)).json;

  it("counts messages and bytes beyond the in-memory limit as paged out, and follows them back in", async () => {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("deep-paged", { durable: true });
    for (let i = 0; i < 60; i++) ch.sendToQueue("deep-paged", BODY, { persistent: true });
    await ch.waitForConfirms();

    const q = await queue("deep-paged");
    assert.equal(q.messages, 60);
    assert.equal(q.messages_paged_out, 60 - IN_MEMORY);
    assert.equal(q.message_bytes_paged_out, (60 - IN_MEMORY) * BODY.length);
    assert.equal(q.messages_ram, IN_MEMORY);
    assert.equal(q.message_bytes_ram, IN_MEMORY * BODY.length);
    assert.equal(q.message_bytes, 60 * BODY.length);

    // Taking 30 over HTTP (acked) brings paged messages back into memory: fewer on disk, same totals.
    const got = await api("POST", "/api/queues/%2f/deep-paged/get", { count: 30, ackmode: "ack_requeue_false", encoding: "auto" });
    assert.equal(got.json.length, 30);
    const after30 = await queue("deep-paged");
    assert.equal(after30.messages, 30);
    assert.ok(after30.messages_paged_out < 60 - IN_MEMORY, `paged back in (${after30.messages_paged_out} still out)`);
    assert.equal(after30.messages_paged_out + after30.messages_ram, 30);
    assert.equal(after30.message_bytes_paged_out + after30.message_bytes_ram, 30 * BODY.length);

    // Purging drops the paged part too.
    assert.equal((await api("DELETE", "/api/queues/%2f/deep-paged/contents")).status, 204);
    await eventually(async () => (await queue("deep-paged")).messages === 0, 2000, "purged");
    const purged = await queue("deep-paged");
    assert.equal(purged.messages_paged_out, 0);
    assert.equal(purged.message_bytes_paged_out, 0);
    await ch.close();
  });

  it("shows nothing paged out for a transient queue, whatever its depth", async () => {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("shallow-transient", { durable: false });
    for (let i = 0; i < 30; i++) ch.sendToQueue("shallow-transient", BODY, { persistent: true });
    await ch.waitForConfirms();
    const q = await queue("shallow-transient");
    assert.equal(q.messages, 30);
    assert.equal(q.messages_paged_out, 0);
    assert.equal(q.message_bytes_paged_out, 0);
    assert.equal(q.messages_ram, 30);
    assert.equal(q.message_bytes_ram, 30 * BODY.length);
    await ch.close();
  });
});
