/** Shared set-up of the native stream protocol tests: a broker with the stream port, and clients of it. */
import { after, before } from "node:test";
import { connect, type Client } from "rabbitmq-stream-js-client";
import amqp, { type ConfirmChannel } from "amqplib";
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

/** A stream broker and one client of it, for a test file. */
export interface StreamFixture {
  readonly b: TestBroker & { streamPort: number };
  readonly client: Client;
}

/** Call inside describe(): the broker and its client start before the file's tests and close after them. */
export function useStreamBroker(options: StartOptions = {}): StreamFixture {
  const f = {} as { b: TestBroker & { streamPort: number }; client: Client };
  before(async () => {
    f.b = await startStreamBroker(options);
    f.client = await streamClient(f.b);
  });
  after(async () => {
    await f.client?.close();
    await f.b?.close();
  });
  return f;
}

/** A stream broker, a native client and an AMQP 0-9-1 connection with a confirm channel. */
export interface StreamAndAmqpFixture extends StreamFixture {
  readonly conn: amqp.ChannelModel;
  readonly ch: ConfirmChannel;
}

/** Call inside describe(): useStreamBroker's pair plus an amqplib connection and confirm channel (closed first: node:test runs after-hooks in the order they were added). */
export function useStreamAndAmqp(options: StartOptions = {}): StreamAndAmqpFixture {
  const f = {} as { b: TestBroker & { streamPort: number }; client: Client; conn: amqp.ChannelModel; ch: ConfirmChannel };
  before(async () => {
    f.b = await startStreamBroker(options);
    f.client = await streamClient(f.b);
    f.conn = await amqp.connect(f.b.amqpUrl);
    f.ch = await f.conn.createConfirmChannel();
  });
  after(async () => {
    await f.conn?.close();
    await f.client?.close();
    await f.b?.close();
  });
  return f;
}
