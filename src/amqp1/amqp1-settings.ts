/** What every AMQP 1.0 connection of a listener shares: limits, the default vhost, logins. */
import type { Duplex } from "node:stream";
import type { ResourceAlarms } from "../broker/index.js";
import type { SaslSettings } from "./sasl-login.js";

export interface Amqp1Settings extends SaslSettings {
  /** Our max-frame-size (the AMQP listener's frame_max). */
  readonly frameMax: number;
  /** Sessions per connection (channel-max + 1 channels). */
  readonly channelMax: number;
  /** Seconds; our idle time-out is this in ms (0: none), as RabbitMQ 4 derives it from heartbeat. */
  readonly heartbeat: number;
  readonly handshakeTimeout: number;
  /** The vhost of an open whose hostname is not "vhost:NAME" (RabbitMQ's default_vhost). */
  readonly defaultVhost: string;
  /** Our container-id in open (the node's name). */
  readonly containerId: string;
  /** Open connections allowed on the node; 0 = no limit. */
  readonly maxConnections: number;
  /** The largest message accepted (RabbitMQ's max_message_size); a larger one detaches its link. */
  readonly maxMessageSize: number;
  /** Transfer frames a session takes before it tops its incoming window up (RabbitMQ 4's max_incoming_window). */
  readonly maxIncomingWindow: number;
  /** Memory and disk alarms: while one is on, senders get no more link credit (incoming-link.ts). */
  readonly alarms: ResourceAlarms | null;
  /** The verified TLS client certificate's name (for SASL EXTERNAL); null without one. */
  certName(socket: Duplex): string | null;
}
