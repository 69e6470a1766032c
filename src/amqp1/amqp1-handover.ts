/**
 * Where the AMQP listener hands over a socket whose protocol header asked for AMQP 1.0
 * ("AMQP" 3 1 0 0, SASL first, or "AMQP" 0 1 0 0), as RabbitMQ 4 serves both protocols on one
 * port. The decision is made once per connection, before any AMQP 0-9-1 frame is read, so the
 * 0-9-1 path pays nothing for it (src/amqp/connection/handshake.ts).
 */
import type { Duplex } from "node:stream";
import type { Broker } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import type { SlabTails } from "../listeners/slab-reads.js";
import { Amqp1Connection } from "./amqp1-connection.js";
import type { Amqp1Settings } from "./amqp1-settings.js";

/**
 * The listener's handover: takes the socket, the bytes read so far (the header first) and the
 * slabs the socket reads into when they come back to a pool (null: none do, e.g. TLS); their
 * pool then lends AMQP 1.0 bodies as it lends 0-9-1's (src/amqp1/lent-payloads.ts).
 */
export type Amqp1Handover = (socket: Duplex, firstBytes: Buffer, tls: boolean, tails: SlabTails | null) => void;

export function amqp1Handover(broker: Broker, settings: Amqp1Settings, logger: Logger): Amqp1Handover {
  return (socket, firstBytes, tls, tails) => new Amqp1Connection(socket, broker, settings, logger, tls, tails).start(firstBytes);
}
