// Vitest global setup: one in-memory broker for every test file. Test files run in workers, so
// they get the broker's address (plain data) through provide/inject, and isolate themselves in a
// vhost of their own (createTestVhost, over the management API).
import { startTestBroker } from "coney/testing";

export default async function setup({ provide }) {
  const broker = await startTestBroker({ http: true });
  provide("coney", broker.address);
  return () => broker.close();
}
