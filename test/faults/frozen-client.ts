/**
 * A client process for the vanished-client test: connects with a 1 s heartbeat, declares an
 * exclusive queue, takes `prefetch` messages from "work" without acking them, then says "ready"
 * on stdout. The test freezes it with SIGSTOP (its socket stays open, nothing is read or sent).
 * Usage: node frozen-client.js <amqp url> <prefetch>
 */
import amqp from "amqplib";

const [url = "", prefetchArg = "5"] = process.argv.slice(2);
const prefetch = Number(prefetchArg);
const conn = await amqp.connect(`${url}?heartbeat=1`);
const ch = await conn.createChannel();
const excl = await ch.assertQueue("", { exclusive: true });
await ch.prefetch(prefetch);
let got = 0;
await ch.consume("work", () => {
  if (++got === prefetch) process.stdout.write(`ready ${excl.queue}\n`);
});
