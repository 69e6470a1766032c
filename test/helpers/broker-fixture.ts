/**
 * The common setup of AMQP test files: one broker and one amqplib connection for the file,
 * opened before its tests and closed after them.
 */
import { after, before } from "node:test";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "./broker.js";
import type { StartOptions } from "../../src/start-broker.js";

export interface BrokerFixture {
  readonly broker: TestBroker;
  readonly conn: ChannelModel;
}

/** Call inside describe(); the returned object is filled in before the first test runs. */
export function useBrokerWithConnection(options: StartOptions = {}): BrokerFixture {
  const fixture = {} as { broker: TestBroker; conn: ChannelModel };
  before(async () => {
    fixture.broker = await startTestBroker(options);
    fixture.conn = await amqp.connect(fixture.broker.amqpUrl);
  });
  after(async () => {
    await fixture.conn.close();
    await fixture.broker.close();
  });
  return fixture;
}

/** Two brokers for a file (federation, shovels, definitions moved between brokers). */
export interface TwoBrokers {
  readonly a: TestBroker;
  readonly b: TestBroker;
}

/** Call inside describe(): brokers a and b start before the file's tests; b closes first after them. */
export function useTwoBrokers(optionsA: StartOptions = {}, optionsB: StartOptions = {}): TwoBrokers {
  const fixture = {} as { a: TestBroker; b: TestBroker };
  before(async () => {
    fixture.a = await startTestBroker(optionsA);
    fixture.b = await startTestBroker(optionsB);
  });
  after(async () => {
    await fixture.b?.close();
    await fixture.a?.close();
  });
  return fixture;
}

/** One broker, one amqplib connection and one channel on it, for a test file. */
export interface BrokerChannelFixture extends BrokerFixture {
  readonly ch: Channel;
}

/** Call inside describe(): useBrokerWithConnection, plus a channel opened before the first test. */
export function useBrokerWithChannel(options: StartOptions = {}): BrokerChannelFixture {
  const fixture = useBrokerWithConnection(options) as BrokerFixture & { ch: Channel };
  before(async () => {
    fixture.ch = await fixture.conn.createChannel();
  });
  return fixture;
}
