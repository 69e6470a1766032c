/**
 * Real fixtures for the UI tests, made through AMQP and the HTTP API: a named connection with a
 * consumer (holding unacked messages), queues with messages, a topic exchange with bindings, a
 * policy, a second user and vhost, and a queue whose name is an HTML injection attempt.
 */
import amqp from "amqplib";
import { apiClient } from "../helpers/http-client.js";
import type { TestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";

export const XSS_NAME = "<img src=x onerror=alert(1)>";

export interface Fixtures {
  readonly connectionName: string;
  /** The error the named connection was closed with, once the broker closed it. */
  closedWith(): string;
  close(): Promise<void>;
}

export async function makeFixtures(broker: TestBroker): Promise<Fixtures> {
  const api = apiClient(() => broker.httpUrl);
  const ok = async (method: string, path: string, body?: unknown): Promise<void> => {
    const res = await api(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  };
  await ok("PUT", "/api/vhosts/staging", {});
  await ok("PUT", "/api/users/alice", { password: "alice-secret", tags: "management" });
  await ok("PUT", "/api/permissions/staging/alice", { configure: "^alice\\.", write: ".*", read: ".*" });
  await ok("PUT", "/api/policies/%2F/orders-ttl", { pattern: "^orders", definition: { "message-ttl": 3600000 }, "apply-to": "queues" });

  const connectionName = "orders-service";
  const conn = await amqp.connect(broker.amqpUrl, { clientProperties: { connection_name: connectionName } });
  let closedWith = "";
  conn.on("error", (err: Error) => (closedWith += err.message));
  conn.on("close", (err?: Error) => (closedWith += err?.message ?? "closed"));
  const ch = await conn.createChannel();
  await ch.assertExchange("events", "topic", { durable: true });
  for (const q of ["orders", "invoices", "orders.worker", XSS_NAME]) await ch.assertQueue(q, { durable: true });
  await ch.bindQueue("orders", "events", "order.*");
  await ch.bindQueue("invoices", "events", "invoice.#");
  await ch.bindQueue("orders.worker", "events", "order.created");
  for (let i = 0; i < 5; i++) ch.publish("events", "order.created", Buffer.from(JSON.stringify({ order: i })), { contentType: "application/json", persistent: true });
  for (let i = 0; i < 3; i++) ch.publish("events", "invoice.paid.eu", Buffer.from(`invoice ${i}`));
  // A consumer with prefetch 2 that never acks: the channel shows 2 unacked messages.
  const consumer = await conn.createChannel();
  await consumer.prefetch(2);
  await consumer.consume("orders.worker", () => undefined, { noAck: false });
  await eventually(async () => (await api("GET", "/api/queues/%2F/orders.worker")).json?.messages_unacknowledged === 2, 5000, "consumer holds 2 unacked");
  await eventually(async () => (await api("GET", "/api/queues/%2F/orders")).json?.messages === 5, 5000, "orders has 5 messages");
  return {
    connectionName,
    closedWith: () => closedWith,
    close: async () => {
      await conn.close().catch(() => undefined);
    },
  };
}
