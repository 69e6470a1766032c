#!/usr/bin/env node
// By hand, not in CI: how often rabbitmq-stream-js-client's consumer of a stream deleted through
// the management API is closed, as its own e2e suite expects ("query offset is able to raise an
// error if the stream is closed"). On MetadataUpdate the client asks Metadata through its locator
// and unsubscribes only if the stream still exists there; a node that told it before every node
// forgot the stream made that Unsubscribe fail, and the consumer stayed open.
// Usage: node scripts/stream-delete-probe.mjs <stream port> <management port> [rounds]
// (a broker started with --stream-advertised-host 127.0.0.1, guest/guest).
import { Buffer } from "node:buffer";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, Offset } from "rabbitmq-stream-js-client";

const [streamPort, httpPort, roundsArg] = process.argv.slice(2);
if (!streamPort || !httpPort) {
  console.error("usage: node scripts/stream-delete-probe.mjs <stream port> <management port> [rounds]");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 20);
const auth = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
const unhandled = [];
process.on("unhandledRejection", (err) => unhandled.push(String(err)));
const client = await connect({ hostname: "127.0.0.1", port: Number(streamPort), username: "guest", password: "guest", vhost: "/", heartbeat: 0 });
let notClosed = 0;
for (let i = 0; i < rounds; i++) {
  const s = `delete-probe-${Date.now()}-${i}`;
  await client.createStream({ stream: s });
  const consumer = await client.declareConsumer({ stream: s, offset: Offset.first(), consumerRef: "probe" }, () => {});
  await globalThis.fetch(`http://127.0.0.1:${httpPort}/api/queues/%2F/${s}`, { method: "DELETE", headers: { authorization: auth } });
  let closed = false;
  for (let t = 0; t < 50 && !closed; t++) {
    await sleep(20);
    closed = await consumer.queryOffset().then(() => false, (err) => /ended by the other party/.test(err.message));
  }
  if (!closed) notClosed++;
}
console.log(JSON.stringify({ rounds, notClosed, unhandled }));
await client.close().catch(() => {});
process.exit(0);
