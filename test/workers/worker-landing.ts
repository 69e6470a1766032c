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
  return request(port, "GET", path, undefined, false).then((r) => r.json);
}

/**
 * A request as guest, on `agent`'s connection (false: a new one each time). An agent with one
 * kept-alive socket sends every request to the worker that accepted it.
 */
export function request(port: number, method: string, path: string, body: unknown, agent: http.Agent | false): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method, agent, auth: "guest:guest", headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text === "" ? undefined : JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
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
