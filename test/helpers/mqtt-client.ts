/**
 * mqtt.js (v5) against a test broker: connect helpers that never reconnect on their own (a test
 * decides when to reconnect) and a way to wait for the next messages a client receives.
 */
import { after } from "node:test";
import { connect, connectAsync, type IClientOptions, type MqttClient } from "mqtt";
import { connect as netConnect } from "node:net";
import { generate, parser, type IConnackPacket, type IConnectPacket, type IPublishPacket, type Packet } from "mqtt-packet";

export interface Received {
  readonly topic: string;
  readonly payload: Buffer;
  readonly packet: IPublishPacket;
}

/** A client plus everything it received, in order. */
export interface TestMqttClient {
  readonly client: MqttClient;
  readonly received: Received[];
  /** The CONNACK (null for a client made by track()). */
  readonly connack: IConnackPacket | null;
  /** Resolves once `count` messages in total have arrived (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<Received[]>;
}

/** Connects; messages are recorded from the first packet on (a session's backlog follows CONNACK at once). */
export async function connectMqtt(url: string, options: IClientOptions = {}): Promise<TestMqttClient> {
  const client = connect(url, { reconnectPeriod: 0, connectTimeout: 5000, protocolVersion: 4, username: "guest", password: "guest", ...options });
  const tracked = track(client);
  const connack = await new Promise<IConnackPacket>((resolve, reject) => {
    client.once("connect", (p) => resolve(p));
    client.once("error", reject);
    client.once("close", () => reject(new Error("connection closed before CONNACK")));
  });
  return { ...tracked, connack };
}

export function track(client: MqttClient): TestMqttClient {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  client.on("message", (topic, payload, packet) => {
    received.push({ topic, payload, packet });
    for (const w of waiters.splice(0)) w();
  });
  return {
    client,
    received,
    connack: null,
    waitFor(count: number, ms = 5000): Promise<Received[]> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} messages, got ${received.length}: ${received.map((r) => r.topic).join(", ")}`)), ms);
        const check = (): void => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve(received.slice(0, count));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

/** Connects expecting a refusal; resolves with the CONNACK code (returnCode for 3.1.1, reasonCode for 5). */
export async function connackCode(url: string, options: IClientOptions): Promise<number> {
  try {
    const c = await connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
    await c.endAsync();
    return 0;
  } catch (err) {
    const e = err as { code?: number };
    if (typeof e.code !== "number") throw err;
    return e.code;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitUntil(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(10);
  }
}

/**
 * A bare MQTT client on a TCP socket (mqtt-packet, no mqtt.js): for what mqtt.js does not let a
 * test do, such as holding PUBACKs while more deliveries arrive (mqtt.js handles one incoming
 * packet at a time) or sending packets mqtt.js refuses to write.
 */
export interface RawMqttClient {
  /** Every packet received, in order. */
  readonly packets: Packet[];
  send(packet: Packet): void;
  /** Resolves once `check` holds for the packets received (rejects after `ms`). */
  until(check: (packets: Packet[]) => boolean, ms?: number): Promise<void>;
  readonly closed: Promise<void>;
  close(): void;
}

export async function rawMqtt(port: number, connect: Partial<IConnectPacket> = {}): Promise<RawMqttClient> {
  const protocolVersion = connect.protocolVersion ?? 5;
  const socket = netConnect(port, "127.0.0.1");
  const packets: Packet[] = [];
  const p = parser({ protocolVersion });
  const waiters: Array<() => void> = [];
  p.on("packet", (packet: Packet) => {
    packets.push(packet);
    for (const w of waiters.splice(0)) w();
  });
  socket.on("data", (d) => p.parse(d));
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const client: RawMqttClient = {
    packets,
    closed,
    send: (packet) => void socket.write(generate(packet, { protocolVersion })),
    until: (check, ms = 5000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`condition not met; received ${packets.map((x) => x.cmd).join(", ")}`)), ms);
        const test = (): void => {
          if (check(packets)) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(test);
        };
        test();
      }),
    close: () => socket.destroy(),
  };
  client.send({ cmd: "connect", protocolId: "MQTT", protocolVersion, clean: true, clientId: "raw", keepalive: 0, username: "guest", password: Buffer.from("guest"), ...connect });
  await client.until((ps) => ps.some((x) => x.cmd === "connack"));
  return client;
}

/** The mqtt.js clients a test file opens, ended together after its tests (useMqttClients). */
export interface MqttClients {
  /** Connects to the file's broker with the file's defaults, then `options`. */
  open(options?: IClientOptions): Promise<TestMqttClient>;
  /** Connects to `url` (a second listener, another broker). */
  connect(url: string, options?: IClientOptions): Promise<TestMqttClient>;
  /** Ends these with the rest (clients made another way). */
  keep(...clients: TestMqttClient[]): void;
}

/**
 * Call inside describe(): every client opened through it is ended (forcibly: a test may have
 * left it mid-handshake or closed by the broker) after the file's tests.
 */
export function useMqttClients(url: () => string, defaults: IClientOptions = {}): MqttClients {
  const clients: TestMqttClient[] = [];
  after(async () => {
    for (const c of clients) await c.client.endAsync(true).catch(() => {});
  });
  const connect = async (to: string, options: IClientOptions = {}): Promise<TestMqttClient> => {
    const c = await connectMqtt(to, { ...defaults, ...options });
    clients.push(c);
    return c;
  };
  return { open: (options = {}) => connect(url(), options), connect, keep: (...cs) => void clients.push(...cs) };
}
