// Jest global setup: one in-memory broker for the run. Test files run in other workers; they
// read its address from the environment and isolate themselves in a vhost of their own.
import { startTestBroker } from "coney/testing";

export default async function globalSetup() {
  const broker = await startTestBroker({ http: true });
  globalThis.coneyBroker = broker; // read back by global-teardown.mjs
  process.env.CONEY_TEST_BROKER = JSON.stringify(broker.address);
}
