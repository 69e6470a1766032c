/**
 * `coney/testing`: a real Coney broker inside a test process, in memory (see test-broker.ts and
 * the README's "Testing your code with Coney").
 */
export { startTestBroker, type TestBroker } from "./test-broker.js";
export { createTestVhost, type TestBrokerAddress, type TestVhost } from "./test-vhost.js";
export type { TestBrokerOptions } from "./test-broker-options.js";
export type { QueueProbe, TestMessage } from "./queue-probe.js";
