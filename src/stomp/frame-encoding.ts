/**
 * Encodes the frames the broker says besides MESSAGE: CONNECTED, RECEIPT and ERROR. Header
 * values are escaped for the negotiated version, except in CONNECTED (STOMP 1.2 §"Value
 * Encoding"). ERROR carries RabbitMQ's headers: message, content-type, version, content-length.
 */
import { escapeHeader } from "./header-escaping.js";
import type { StompError } from "./stomp-errors.js";
import type { StompVersion } from "./stomp-frame.js";

export function frameHead(command: string, headers: readonly (readonly [string, string])[], version: StompVersion): Buffer {
  let out = `${command}\n`;
  const escape = command !== "CONNECTED";
  for (const [k, v] of headers) out += escape ? `${escapeHeader(k, version)}:${escapeHeader(v, version)}\n` : `${k}:${v}\n`;
  return Buffer.from(`${out}\n`);
}

export function errorFrame(e: StompError, version: StompVersion, receiptId: string | undefined, more: readonly (readonly [string, string])[] = []): { head: Buffer; body: Buffer } {
  const body = Buffer.from(e.detail);
  const headers: (readonly [string, string])[] = [
    ["message", e.message],
    ["content-type", "text/plain"],
    ["version", "1.0,1.1,1.2"],
    ...more,
  ];
  if (receiptId !== undefined) headers.push(["receipt-id", receiptId]);
  headers.push(["content-length", String(body.length)]);
  return { head: frameHead("ERROR", headers, version), body };
}
