/** Shared set-up of the native stream protocol tests: a broker with the stream port, and clients of it. */
import { connect, type Client } from "rabbitmq-stream-js-client";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import type { StartOptions } from "../../src/start-broker.js";

export async function startStreamBroker(options: StartOptions = {}): Promise<TestBroker & { streamPort: number }> {
  const b = await startTestBroker({ streamPort: 0, ...options });
  if (b.streamPort === null && b.streamTlsPort === null) throw new Error("no stream listener started");
  return b as TestBroker & { streamPort: number };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

export function streamClient(b: { streamPort: number }, o: { username?: string; password?: string; vhost?: string; heartbeat?: number } = {}): Promise<Client> {
  return connect(
    { hostname: "127.0.0.1", port: b.streamPort, username: o.username ?? "guest", password: o.password ?? "guest", vhost: o.vhost ?? "/", heartbeat: o.heartbeat ?? 0 },
    silent,
  );
}
