/**
 * A vhost of a test's own, on a test broker that runs in another process or worker (a Vitest or
 * Jest global setup): made and removed through the management API, so all it needs is the
 * broker's address (plain data that crosses to workers). On the broker object itself,
 * `vhostPerTest()` does the same without HTTP.
 */
import { randomBytes } from "node:crypto";

/** What a test needs to reach a test broker: plain data, so it can be handed to workers. */
export interface TestBrokerAddress {
  readonly amqpUrl: string;
  /** The management API's base URL: null when the broker was started without `http`. */
  readonly httpUrl: string | null;
  readonly httpAuthorization: string;
  readonly username: string;
  readonly password: string;
  readonly amqpPort: number;
}

export interface TestVhost {
  readonly name: string;
  /** The AMQP URL of this vhost, as the test broker's user. */
  readonly amqpUrl: string;
  /** Deletes the vhost with everything in it and closes its connections. */
  delete(): Promise<void>;
}

/** The AMQP URL of `vhost` on the broker at `address`, as its user unless told otherwise. */
export function amqpUrlOf(address: Pick<TestBrokerAddress, "amqpPort" | "username" | "password">, vhost: string, user?: { username?: string; password?: string }): string {
  const name = encodeURIComponent(user?.username ?? address.username);
  const pass = encodeURIComponent(user?.password ?? address.password);
  return `amqp://${name}:${pass}@127.0.0.1:${address.amqpPort}/${encodeURIComponent(vhost)}`;
}

/** Creates a fresh vhost with full permissions for the broker's user; needs the broker's `http` listener. */
export async function createTestVhost(address: TestBrokerAddress): Promise<TestVhost> {
  const base = address.httpUrl;
  if (base === null) throw new Error("createTestVhost needs the management API: start the test broker with { http: true }");
  const name = `test-${process.pid}-${randomBytes(4).toString("hex")}`;
  const call = async (method: string, path: string, body?: unknown): Promise<void> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: address.httpAuthorization, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok && !(method === "DELETE" && res.status === 404)) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  };
  const v = encodeURIComponent(name);
  await call("PUT", `/api/vhosts/${v}`, { description: "a test's own vhost (coney/testing createTestVhost)" });
  await call("PUT", `/api/permissions/${v}/${encodeURIComponent(address.username)}`, { configure: ".*", write: ".*", read: ".*" });
  return { name, amqpUrl: amqpUrlOf(address, name), delete: () => call("DELETE", `/api/vhosts/${v}`) };
}
