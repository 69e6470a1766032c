/**
 * The only place a BrokerError becomes an HTTP answer: status and `{"error","reason"}` from the
 * error catalogue. Unknown errors are 500 with a generic body (details go to the log).
 */
import type { FastifyReply } from "fastify";
import { BrokerError } from "../errors/broker-error.js";

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const be = err instanceof BrokerError ? err : null;
  if (!be) return reply.code(500).send({ error: "internal_server_error", reason: "Internal Server Error" });
  if (be.kind === "notAuthorized") {
    // RFC 7235: every 401 carries the challenge. No credentials: no body; failed ones: RabbitMQ's.
    reply.header("www-authenticate", 'Basic realm="RabbitMQ Management"');
    if (be.reason === "") return reply.code(401).send();
  }
  const { status, body } = errorAnswer(be);
  return reply.code(status).send(body);
}

/** A BrokerError's HTTP status and `{"error","reason"}` body (an onSend hook that replaces a reply's payload takes it too). */
export function errorAnswer(be: BrokerError): { status: number; body: { error: string; reason: unknown } } {
  return { status: be.spec.httpStatus, body: { error: be.spec.httpError, reason: be.httpReason } };
}

/** The recurring reasons live in the error catalogue's reasons (src/errors/reasons.ts). */
export { LOGIN_FAILED, objectNotFound } from "../errors/reasons.js";
export const badRequest = (reason: string): BrokerError => new BrokerError("badRequest", reason);
