// A stream's queue page in real headless Chromium (issue 24, operators): the Stream section shows
// the log's segments, first / last / committed offset and size as the API gives them, and a table
// of its readers — an AMQP 0-9-1 consumer holding unacked deliveries and a native subscription —
// each with its offset and lag. Screenshot: test-output/ui/stream-queue.png.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ChannelModel, type ConsumeMessage } from "amqplib";
import { Offset, type Client } from "rabbitmq-stream-js-client";
import type { TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { collector, withTimeout } from "../helpers/wait.js";
import { startStreamBroker, streamClient } from "../stream/stream-helpers.js";
import { useGuestPage } from "./guest-page.js";
import { go, textOf, waitText } from "./ui-session.js";

describe("web UI stream queue page", () => {
  let b: TestBroker & { streamPort: number };
  let conn: ChannelModel;
  let native: Client;
  const dataDir = mkdtempSync(join(tmpdir(), "coney-ui-stream-"));
  const api = apiClient(() => b.httpUrl);
  before(async () => {
    b = await startStreamBroker({ dataDir });
    conn = await amqp.connect(b.amqpUrl);
    const pub = await conn.createConfirmChannel();
    await pub.assertQueue("events.log", { durable: true, arguments: { "x-queue-type": "stream", "x-stream-max-segment-size-bytes": 4000 } });
    for (let i = 0; i < 12; i++) {
      pub.sendToQueue("events.log", Buffer.alloc(1000, "e"));
      await pub.waitForConfirms();
    }
    const ch = await conn.createChannel();
    await ch.prefetch(3);
    const got = collector<number>(3);
    await ch.consume("events.log", (m: ConsumeMessage | null) => m && got.push(1), { arguments: { "x-stream-offset": 5 } });
    await withTimeout(got.done, 5000, "AMQP deliveries");
    native = await streamClient(b);
    const read = collector<number>(12);
    await native.declareConsumer({ stream: "events.log", offset: Offset.first() }, () => read.push(1));
    await withTimeout(read.done, 5000, "native deliveries");
  });
  after(async () => {
    await native?.close();
    await conn?.close();
    await b?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const ui = useGuestPage(() => b.httpUrl);

  it("shows the stream's segments, offsets and size, and each reader's offset", async () => {
    const r = (await api("GET", "/api/queues/%2F/events.log")).json;
    assert.ok(r.segments >= 3, `segments ${r.segments}`);
    await go(ui.w.page, "/queues/%2F/events.log", "events.log");
    await waitText(ui.w.page, "table[aria-label='Stream readers']", "subscription");
    const stream = await textOf(ui.w.page, "table[aria-label='Stream']");
    assert.match(stream, new RegExp(`Segments${r.segments}`));
    assert.match(stream, /First offset0/);
    assert.match(stream, /Last offset11/);
    assert.match(stream, /Committed offset11/);
    assert.match(stream, /Size\s*\d+(\.\d+)?\s*[kK]i?B/);
    const rows = await ui.w.page.$$eval("table[aria-label='Stream readers'] tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent!.trim())));
    assert.equal(rows.length, 2, JSON.stringify(rows));
    const [amqpRow, nativeRow] = rows as string[][];
    // The AMQP consumer from offset 5 with prefetch 3, no acks: sent 5–7, next 8, 4 behind the end (12).
    assert.equal(amqpRow![0], "AMQP 0-9-1");
    assert.match(amqpRow![1]!, /^amq\.ctag-/);
    assert.deepEqual(amqpRow!.slice(3), ["guest", "8", "4"]);
    assert.equal(nativeRow![0], "Stream");
    assert.deepEqual(nativeRow!.slice(3), ["guest", "12", "0"]);
    assert.match(stream, new RegExp(`Leader${r.node}Members${r.node}Online${r.node}`));
    // basic.get and purge do nothing to a stream: the page does not offer them (RabbitMQ's neither).
    const sections = await textOf(ui.w.page, "details.section summary");
    assert.doesNotMatch(sections, /Get messages|Purge/);
    assert.match(sections, /Publish message/);
    await ui.w.shot("stream-queue");
    assert.deepEqual(ui.w.problems, []);
  });
});
