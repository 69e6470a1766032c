/**
 * Which worker of `coney --workers N` a client landed on: the primary hands each accepted
 * connection to a worker, and each worker lists only its own connections in /api/connections, so
 * a connection is named and looked for in the list (asked on a new TCP connection each time, so
 * the request reaches either worker).
 */
import http from "node:http";
import { eventually } from "../helpers/wait.js";

/** A GET on a new TCP connection, as guest. */
export function freshGet(port: number, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false, auth: "guest:guest" }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve(JSON.parse(body)));
    });
    req.on("error", reject);
  });
}

/** The node of the connection named `name` (client property connection_name), once a worker lists it. */
export async function nodeOfConnection(httpPort: number, name: string): Promise<string> {
  let node: string | undefined;
  await eventually(async () => {
    const list = (await freshGet(httpPort, "/api/connections")) as Array<{ node: string; name: string; client_properties: { connection_name?: string } }>;
    node = list.find((x) => x.client_properties.connection_name === name)?.node;
    return node !== undefined;
  }, 10_000, `connection ${name} in /api/connections`);
  return node!;
}
