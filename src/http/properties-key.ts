/**
 * The binding "props" path segment (RabbitMQ's pack_binding_props): "~" for an empty key
 * without arguments, the quote_plus-escaped key (with "~" as %7E) without arguments, or
 * "key~HASH" with arguments, HASH being a stable 6-character base64url digest of the arguments.
 * Parsing splits on the first "~", so keys holding ~ + % / round-trip.
 */
import { createHash } from "node:crypto";
import type { FieldTable } from "../broker/values/field-value.js";
import { canonicalJson } from "../broker/index.js";

function quotePlus(s: string): string {
  return encodeURIComponent(s)
    .replace(/%20/g, "+")
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/~/g, "%7E");
}

export function argsHash(args: FieldTable): string {
  return createHash("sha256").update(canonicalJson(args)).digest().subarray(0, 4).toString("base64url");
}

export function propertiesKey(routingKey: string, args: FieldTable): string {
  const hasArgs = Object.keys(args).length > 0;
  if (routingKey === "" && !hasArgs) return "~";
  return hasArgs ? `${quotePlus(routingKey)}~${argsHash(args)}` : quotePlus(routingKey);
}

/** Splits a props segment (already percent-decoded once by the router) into key and args hash. */
export function parsePropertiesKey(props: string): { routingKey: string; hash: string | null } {
  const i = props.indexOf("~");
  const keyPart = i < 0 ? props : props.slice(0, i);
  const hash = i < 0 ? null : props.slice(i + 1) || null;
  let routingKey: string;
  try {
    routingKey = decodeURIComponent(keyPart.replace(/\+/g, " "));
  } catch {
    routingKey = keyPart;
  }
  return { routingKey, hash };
}
