/**
 * What a CONNECT asks for, before any login: the client id (assigned when empty, as RabbitMQ
 * does, except for a persistent MQTT 3.1.1 session where it must be given), the session expiry
 * (3.1.1: none for a clean session, the maximum otherwise; MQTT 5: the client's, capped), the
 * receive maximum, the largest packet and the number of topic aliases the client takes; and the
 * CONNACK packets that answer it.
 */
import { randomBytes } from "node:crypto";
import type { IConnackPacket, IConnectPacket } from "mqtt-packet";
import { MAX_SESSION_EXPIRY_SECONDS } from "./mqtt-node.js";
import { connackReturnCode, RC } from "./mqtt-reason-codes.js";
import { isValidTopicName } from "./mqtt-topic.js";
import { MQTT_MAX_PACKET } from "./packet-writer.js";
import type { MqttSettings } from "./mqtt-node.js";

export interface ConnectTerms {
  readonly clientId: string;
  /** The client sent no id: MQTT 5 is told the one assigned. */
  readonly assigned: boolean;
  /** 3.1.1 clean session / MQTT 5 clean start. */
  readonly cleanStart: boolean;
  /** Seconds; 0 = the session ends with the connection. */
  readonly expiry: number;
  readonly receiveMaximum: number;
  /** The client's Maximum Packet Size (MQTT 5; absent: MQTT's limit). */
  readonly maxPacketSize: number;
  /** The client's Topic Alias Maximum (MQTT 5; absent: 0, no aliases to the client). */
  readonly topicAliasMaximum: number;
  /** Seconds of keep-alive in force: the client's, or for MQTT 5 at most mqtt.server_keep_alive. */
  readonly keepAlive: number;
  /** MQTT 5: the client's keep-alive was lowered, and CONNACK says so (Server Keep Alive). */
  readonly serverKeepAlive: boolean;
  /** MQTT 5: the client set Request Response Information; CONNACK carries Response Information. */
  readonly responseInformation: boolean;
}

export type TermsOutcome = { readonly ok: true; readonly terms: ConnectTerms } | { readonly ok: false; readonly reasonCode: number; readonly why: string };

/**
 * `serverKeepAlive` (mqtt.server_keep_alive, 0: none) is the longest keep-alive an MQTT 5 client is
 * granted (§3.2.2.3.14): a client asking for more is told this in CONNACK.
 * MQTT 3.1.1 cannot be told: it keeps its own.
 */
export function connectTerms(p: IConnectPacket, v5: boolean, serverKeepAlive: number): TermsOutcome {
  const cleanStart = p.clean !== false;
  let clientId = p.clientId;
  let assigned = false;
  if (clientId === "") {
    if (!cleanStart && !v5) return { ok: false, reasonCode: RC.clientIdentifierNotValid, why: "a client id is required for a persistent session" };
    clientId = randomBytes(16).toString("base64url");
    assigned = true;
  }
  if (v5 && p.properties?.authenticationMethod !== undefined) return { ok: false, reasonCode: RC.badAuthenticationMethod, why: "extended authentication is not supported" };
  if (p.will && !isValidTopicName(p.will.topic)) return { ok: false, reasonCode: RC.topicNameInvalid, why: `invalid will topic '${p.will.topic}'` };
  const expiry = v5 ? Math.min(p.properties?.sessionExpiryInterval ?? 0, MAX_SESSION_EXPIRY_SECONDS) : cleanStart ? 0 : MAX_SESSION_EXPIRY_SECONDS;
  const props = v5 ? p.properties : undefined;
  const asked = p.keepalive ?? 0;
  const capped = v5 && serverKeepAlive > 0 && asked > serverKeepAlive;
  return {
    ok: true,
    terms: {
      clientId,
      assigned,
      cleanStart,
      expiry,
      receiveMaximum: props?.receiveMaximum ?? 65_535,
      maxPacketSize: props?.maximumPacketSize ?? MQTT_MAX_PACKET,
      topicAliasMaximum: props?.topicAliasMaximum ?? 0,
      keepAlive: capped ? serverKeepAlive : asked,
      serverKeepAlive: capped,
      responseInformation: v5 && p.properties?.requestResponseInformation === true,
    },
  };
}

/** The accepting CONNACK; MQTT 5 hears what the server supports (RabbitMQ's set). */
export function acceptingConnack(v5: boolean, present: boolean, terms: ConnectTerms, s: MqttSettings): IConnackPacket {
  if (!v5) return { cmd: "connack", returnCode: 0, sessionPresent: present };
  const { maxPacketSize, topicAliasMaximum } = s;
  return {
    cmd: "connack",
    reasonCode: RC.success,
    sessionPresent: present,
    properties: {
      // No Maximum QoS: QoS 2 is supported (§3.2.2.3.4).
      receiveMaximum: s.receiveMaximum,
      retainAvailable: true,
      sharedSubscriptionAvailable: true,
      subscriptionIdentifiersAvailable: true,
      wildcardSubscriptionAvailable: true,
      maximumPacketSize: maxPacketSize,
      ...(topicAliasMaximum > 0 ? { topicAliasMaximum } : {}),
      sessionExpiryInterval: terms.expiry,
      ...(terms.serverKeepAlive ? { serverKeepAlive: terms.keepAlive } : {}),
      ...(terms.assigned ? { assignedClientIdentifier: terms.clientId } : {}),
      ...(terms.responseInformation ? { responseInformation: responseInformation(terms.clientId) } : {}),
    },
  };
}

/** A refusing CONNACK: the reason code, or for 3.1.1 the return code it becomes. */
export function refusingConnack(v5: boolean, reasonCode: number): IConnackPacket {
  return v5 ? { cmd: "connack", reasonCode, sessionPresent: false } : { cmd: "connack", returnCode: connackReturnCode(reasonCode), sessionPresent: false };
}

/**
 * The Response Information given to a client that asks for it (§3.2.2.3.15): a topic prefix that
 * is the client's own, `response/<client id>/`, on which it may build its Response Topics (the
 * broker grants nothing by it: topic permissions apply as to any topic).
 */
export function responseInformation(clientId: string): string {
  return `response/${clientId}/`;
}
