/** The AMQP TCP listener: each accepted socket becomes an AmqpConnection. */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import type { Broker } from "../broker/broker.js";
import type { Logger } from "../logging/logger.js";
import { AmqpConnection, type AmqpSettings } from "./connection/connection.js";

export interface AmqpListener {
  readonly port: number;
  close(): Promise<void>;
}

export async function listenAmqp(broker: Broker, settings: AmqpSettings, port: number, bind: string, logger: Logger): Promise<AmqpListener> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    new AmqpConnection(socket, broker, settings, logger);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, bind === "" ? undefined : bind, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of broker.connections.list()) c.forceClose("broker shutdown");
        server.close(() => resolve());
        setTimeout(() => {
          for (const s of sockets) s.destroy();
        }, 200).unref();
      }),
  };
}
