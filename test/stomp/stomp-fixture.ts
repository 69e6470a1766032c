/**
 * The common setup of STOMP test files: a broker with its STOMP listener, an amqplib connection
 * and channel on the other side (to see what STOMP did in AMQP terms), and STOMP logins that are
 * all closed after the file's tests.
 */
import { after, before } from "node:test";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { StompWire } from "../helpers/stomp-wire.js";

export interface StompFixture {
  readonly broker: TestBroker;
  /** The STOMP listener's port. */
  readonly port: number;
  readonly conn: ChannelModel;
  readonly ch: Channel;
  /** A STOMP connection logged in (as guest unless `headers` say otherwise), closed after the file. */
  login(headers?: Record<string, string>): Promise<StompWire>;
  /** A STOMP connection opened by the test itself, closed after the file too. */
  track(w: StompWire): StompWire;
}

/** Call inside describe(); `prepare` runs once the broker is up (users, permissions). */
export function useStompBroker(prepare: (b: TestBroker) => void = () => undefined): StompFixture {
  const wires: StompWire[] = [];
  const f = {
    login: async (headers: Record<string, string> = {}): Promise<StompWire> => {
      const w = await StompWire.login(f.port, headers);
      wires.push(w);
      return w;
    },
    track: (w: StompWire): StompWire => {
      wires.push(w);
      return w;
    },
  } as StompFixture & { broker: TestBroker; port: number; conn: ChannelModel; ch: Channel };
  before(async () => {
    f.broker = await startTestBroker({ stompPort: 0 });
    f.port = f.broker.stompPort!;
    f.conn = await amqp.connect(f.broker.amqpUrl);
    f.ch = await f.conn.createChannel();
    prepare(f.broker);
  });
  after(async () => {
    for (const w of wires) w.close();
    await f.conn?.close();
    await f.broker?.close();
  });
  return f;
}
