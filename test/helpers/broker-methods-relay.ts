/**
 * A TCP relay in front of a broker's AMQP 0-9-1 port that hands every method frame the broker
 * sends, with its channel, to `onMethod`, in the order the broker wrote them: tests that assert
 * what went over the wire (an order, a frame that must not be sent) where the client library
 * would hide it. Bytes pass unchanged both ways; either side closing closes the other.
 */
import { createServer, connect, type AddressInfo, type Server } from "node:net";
import { FrameReader } from "../../src/amqp/codec/frame-reader.js";
import { decodeMethod } from "../../src/amqp/codec/generated.js";

export type SentMethod = ReturnType<typeof decodeMethod>;

export async function brokerMethodsRelay(brokerPort: number, onMethod: (channel: number, m: SentMethod) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((client) => {
    const broker = connect(brokerPort, "127.0.0.1");
    const reader = new FrameReader(1 << 20);
    client.pipe(broker);
    broker.on("data", (d: Buffer) => {
      reader.push(d);
      while (reader.next()) if (reader.type === 1) onMethod(reader.channel, decodeMethod(reader.payloadBuf, reader.payloadStart, reader.payloadEnd));
    });
    broker.pipe(client);
    client.on("close", () => broker.destroy());
    broker.on("close", () => client.destroy());
    client.on("error", () => {});
    broker.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
