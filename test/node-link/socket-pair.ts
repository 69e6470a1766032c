/** Two ends of one real loopback TCP connection, for a link writer on one and the link's reader on the other. */
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";

export async function socketPair(): Promise<{ out: Socket; inn: Socket; close(): void }> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection");
  const out = connect((server.address() as { port: number }).port, "127.0.0.1");
  const [inn] = (await accepted) as [Socket];
  await once(out, "connect").catch(() => {});
  return {
    out,
    inn,
    close: () => {
      out.destroy();
      inn.destroy();
      server.close();
    },
  };
}
