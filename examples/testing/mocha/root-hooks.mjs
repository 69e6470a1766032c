// Mocha root hooks: one in-memory broker for the whole run, emptied before every test.
import { startTestBroker } from "coney/testing";

export const broker = { current: null };

export const mochaHooks = {
  async beforeAll() {
    broker.current = await startTestBroker();
  },
  beforeEach() {
    broker.current.reset();
  },
  async afterAll() {
    await broker.current.close();
  },
};
