import amqp from "amqplib";
const c = await amqp.connect("amqp://guest:guest@127.0.0.1:35671");
const ch = await c.createChannel();
await ch.assertExchange(process.argv[2], "fanout", { durable: true });
await c.close();
