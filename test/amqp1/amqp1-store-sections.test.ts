// A persistent AMQP 1.0 message whose body is several data sections, in a durable classic queue:
// the message store writes its record once — the original sections, with the body as ranges of
// them (src/store/message-record.ts, BODY_RANGES), not the body again — and after a restart an
// AMQP 1.0 consumer gets the sections byte for byte and a 0-9-1 consumer the joined body.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, openSender, receive } from "../helpers/rhea-client.js";
import { withTimeout } from "../helpers/wait.js";
import { receivedPayloads } from "../helpers/rhea-raw.js";
import { encodeAmqp10 } from "../../src/amqp10/amqp10-encoder.js";
import { decodeMessage } from "../../src/amqp10/message-sections.js";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";

const QUEUE = "two-sections";
const section = (code: number, value: Amqp10Value): Buffer => encodeAmqp10({ type: "described", descriptor: { type: "ulong", value: BigInt(code) }, value });
const PART_1 = Buffer.from("first-section-bytes|");
const PART_2 = Buffer.from("second-section-bytes");
const REST = Buffer.concat([
  section(0x73, { type: "list", value: [{ type: "string", value: "m-1" }, { type: "null" }, { type: "null" }, { type: "string", value: "two" }] }),
  section(0x75, { type: "binary", value: PART_1 }),
  section(0x75, { type: "binary", value: PART_2 }),
]);
const PAYLOAD = Buffer.concat([section(0x70, { type: "list", value: [{ type: "boolean", value: true }] }), REST]);

/** Every file under `dir` but the streams', concatenated. */
function storeBytes(dir: string): Buffer {
  const files = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => !f.startsWith("streams") && statSync(join(dir, f)).isFile());
  return Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
}

function occurrences(hay: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) n++;
  return n;
}

describe("a 1.0 message of several data sections in the message store", () => {
  let dataDir: string;
  let broker: TestBroker;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "coney-amqp1-sections-"));
    broker = await startTestBroker({ dataDir });
    const ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.declareQueue(ctx, "/", { name: QUEUE, durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is written once and reads back whole after a restart, over 1.0 and 0-9-1", async () => {
    const c = await connect(broker.amqpPort);
    const s = await openSender(c, `/queues/${QUEUE}`);
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        let accepted = 0;
        s.on("accepted", () => ++accepted === 2 && resolve());
        s.on("rejected", () => reject(new Error("rejected")));
        for (let i = 0; i < 2; i++) s.send(PAYLOAD as never, undefined, 0);
      }),
      5000,
      "the publishes' outcomes",
    );
    await close(c);
    await broker.close();
    // Each body section's bytes once per message: in the original, not again as the body.
    assert.equal(occurrences(storeBytes(dataDir), PART_1), 2);
    assert.equal(occurrences(storeBytes(dataDir), PART_2), 2);

    broker = await startTestBroker({ dataDir });
    const raws = await receivedPayloads(async () => {
      const c2 = await connect(broker.amqpPort);
      await receive(c2, `/queues/${QUEUE}`, 1, { autoaccept: true, credit_window: 1 }).messages;
      await close(c2);
    });
    assert.deepEqual(decodeMessage(raws[0]!).raw!.rest, REST);

    const conn = await amqp.connect(broker.amqpUrl);
    conn.on("error", () => undefined);
    try {
      const ch = await conn.createChannel();
      const got = await ch.get(QUEUE, { noAck: true });
      assert.ok(got);
      assert.deepEqual(got.content, Buffer.concat([PART_1, PART_2]));
      assert.equal(got.properties.deliveryMode, 2);
      assert.equal(got.properties.messageId, "m-1");
    } finally {
      await conn.close();
    }
  });
});
