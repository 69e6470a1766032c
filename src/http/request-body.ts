/**
 * Typed reads of JSON request bodies, each failure a 400 that names the field. RabbitMQ accepts
 * booleans as JSON booleans or the strings "true"/"false".
 */
import { badRequestTerm } from "../errors/broker-error.js";
import { badRequest } from "./http-errors.js";

export type Body = Record<string, unknown>;

export function objectBody(body: unknown): Body {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw badRequest(typeof body === "string" ? "invalid payload: the request body JSON-decoded to a string. Is the input doubly-JSON-encoded?" : "the request body must be a JSON object");
  }
  return body as Body;
}

/** RabbitMQ's check of mandatory keys: the first one missing is `[{key_missing,<key>}]`. */
export function requireKeys(b: Body, keys: readonly string[]): void {
  for (const k of keys) if (b[k] === undefined) throw badRequest(`[{key_missing,${k}}]`);
}

export function optBool(b: Body, key: string, fallback: boolean): boolean {
  const v = b[key];
  if (v === undefined || v === null) return fallback;
  if (v === true || v === "true") return true;
  if (v === false || v === "false") return false;
  throw badRequestTerm("not_boolean", v);
}

export function optString(b: Body, key: string, fallback: string): string {
  const v = b[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "string") throw badRequest(`'${key}' must be a string, got ${JSON.stringify(v)}`);
  return v;
}

export function reqString(b: Body, key: string): string {
  const v = b[key];
  if (v === undefined) requireKeys(b, [key]);
  if (typeof v !== "string") throw badRequest(`'${key}' must be a string, got ${JSON.stringify(v)}`);
  return v;
}

export function optObject(b: Body, key: string): Record<string, unknown> {
  const v = b[key];
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw badRequest(`'${key}' must be an object, got ${JSON.stringify(v)}`);
  return v as Record<string, unknown>;
}
