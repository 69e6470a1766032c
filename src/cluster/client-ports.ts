/**
 * The client ports every cluster node serves (docs/CLUSTERING.md, "Clients"): which there are,
 * which of them the configuration turns on, the protocol name each is reported under (the names
 * the leader's broker gives the same listeners, so a port keeps its name through an election),
 * and the broker settings that make the leader bind the very ports its follower front bound.
 * AMQP 1.0 has no port of its own: it arrives on the AMQP and AMQPS ports.
 */
import type { ConeyConfig } from "../config/config.js";

export type ClientPortKind = "amqp" | "amqps" | "http" | "mqtt" | "mqtts" | "webMqtt" | "webMqtts" | "stomp" | "stomps" | "webStomp";

export type ClientPorts = Partial<Record<ClientPortKind, number>>;

/** The configuration fields of the client ports (each `number`, or `number | null` where it can be turned off). */
type PortSetting = "amqpPort" | "amqpsPort" | "httpPort" | "mqttPort" | "mqttsPort" | "webMqttPort" | "webMqttsPort" | "stompPort" | "stompsPort" | "webStompPort";

interface ClientPort {
  /** As the listener health checks and coney_listener_up name it. */
  readonly protocol: string;
  readonly setting: PortSetting;
  /** Served only with the node's certificate (`--tls-cert`), as the broker serves it. */
  readonly needsTls: boolean;
}

/** In listening order: AMQP first (it is essential at a node's first start). */
export const CLIENT_PORTS: Readonly<Record<ClientPortKind, ClientPort>> = {
  amqp: { protocol: "amqp", setting: "amqpPort", needsTls: false },
  amqps: { protocol: "amqp/ssl", setting: "amqpsPort", needsTls: true },
  http: { protocol: "http", setting: "httpPort", needsTls: false },
  mqtt: { protocol: "mqtt", setting: "mqttPort", needsTls: false },
  mqtts: { protocol: "mqtt/ssl", setting: "mqttsPort", needsTls: true },
  webMqtt: { protocol: "http/web-mqtt", setting: "webMqttPort", needsTls: false },
  webMqtts: { protocol: "https/web-mqtt", setting: "webMqttsPort", needsTls: true },
  stomp: { protocol: "stomp", setting: "stompPort", needsTls: false },
  stomps: { protocol: "stomp/ssl", setting: "stompsPort", needsTls: true },
  webStomp: { protocol: "http/web-stomp", setting: "webStompPort", needsTls: false },
};

const KINDS = Object.keys(CLIENT_PORTS) as ClientPortKind[];

/** The port configured for `kind`; null when the configuration turns that listener off. */
export function configuredPort(config: ConeyConfig, kind: ClientPortKind): number | null {
  const spec = CLIENT_PORTS[kind];
  if (spec.needsTls && config.tlsCert === null) return null;
  return config[spec.setting];
}

/** The client ports a node listens on: each configured one, at the port it bound first if it has (0 = ephemeral). */
export function wantedPorts(config: ConeyConfig, bound: ClientPorts): Array<[ClientPortKind, number]> {
  const wanted: Array<[ClientPortKind, number]> = [];
  for (const kind of KINDS) {
    const port = configuredPort(config, kind);
    if (port !== null) wanted.push([kind, bound[kind] ?? port]);
  }
  return wanted;
}

/** The broker's port settings on the leader: the ports its front bound, so clients find it where they found the follower. */
export function leaderPortSettings(bound: ClientPorts): Partial<Pick<ConeyConfig, PortSetting>> {
  const settings: Partial<Record<PortSetting, number>> = {};
  for (const kind of KINDS) {
    const port = bound[kind];
    if (port !== undefined) settings[CLIENT_PORTS[kind].setting] = port;
  }
  return settings;
}
