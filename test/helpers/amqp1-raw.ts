/**
 * A raw AMQP 1.0 client for the tests that must send what no library sends (malformed frames,
 * transfers past credit or window, a transaction coordinator): the opening frames of a logged-in
 * connection with one session, and a socket whose received bytes can be searched for conditions.
 */
import { connect as tcpConnect, type Socket } from "node:net";
import { FRAME_AMQP, FRAME_SASL } from "../../src/amqp1/amqp1-frames.js";
import { PERFORMATIVE, performativeFrame } from "../../src/amqp1/performatives.js";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";

const SASL = Buffer.from("AMQP\x03\x01\x00\x00", "latin1");
const AMQP = Buffer.from("AMQP\x00\x01\x00\x00", "latin1");
export const u = (value: number): Amqp10Value => ({ type: "uint", value });
export const s = (value: string): Amqp10Value => ({ type: "string", value });

/** A raw client: everything it receives, as latin1 text to look for condition symbols in. */
export function raw(port: number): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = tcpConnect(port, "127.0.0.1");
  let got = "";
  socket.on("data", (d: Buffer) => (got += d.toString("latin1")));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  return { socket, received: () => got, closed };
}

/** The frames of a logged-in, opened connection with one session on channel 0. */
export function opening(): Buffer[] {
  return [
    SASL,
    performativeFrame(FRAME_SASL, 0, PERFORMATIVE.saslInit, [{ type: "symbol", value: "PLAIN" }, { type: "binary", value: Buffer.from("\0guest\0guest") }]),
    AMQP,
    performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.open, [s("raw")]),
    performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.begin, [{ type: "null" }, u(0), u(100000), u(100000)]),
  ];
}

/** A sender's attach (role sender, pre-settled) on handle 0 with the given target terminus. */
export function senderAttach(name: string, target: Amqp10Value): Buffer {
  return performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.attach, [s(name), u(0), { type: "boolean", value: false }, { type: "ubyte", value: 1 }, { type: "ubyte", value: 0 }, { type: "null" }, target, { type: "null" }, { type: "null" }, u(0)]);
}

/** A target terminus with an address (amqp:target:list). */
export const target = (address: string): Amqp10Value => ({ type: "described", descriptor: { type: "ulong", value: BigInt(PERFORMATIVE.target) }, value: { type: "list", value: [s(address)] } });

/** One pre-settled transfer on handle 0 of a one-byte data section. */
export function settledTransfer(deliveryId: number): Buffer {
  const head = performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.transfer, [u(0), u(deliveryId), { type: "binary", value: Buffer.from([deliveryId & 0xff, deliveryId >> 8]) }, u(0), { type: "boolean", value: true }]);
  const frame = Buffer.concat([head, Buffer.from([0x00, 0x53, 0x75, 0xa0, 0x01, 0x78])]);
  frame.writeUInt32BE(frame.length, 0);
  return frame;
}
