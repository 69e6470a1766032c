/**
 * RabbitMQ 4's `/management` node: one request message in, one response message out (HTTP over
 * AMQP, as RabbitMQ 4 implements it). The request's properties carry the method (subject), the
 * request target (to, an HTTP-style path with percent-encoded names), the message-id, and
 * reply-to "$me" (the response goes back on the link pair); its body is one amqp-value section.
 * The response's properties carry the status code as subject and the request's message-id as
 * correlation-id, its application-properties "http:response" = "1.1", and its body one
 * amqp-value section (the result, or the reason of a failure as a string).
 *
 * Routes (management-operations.ts):
 *   GET|PUT|DELETE /queues/:q · DELETE /queues/:q/messages · PUT|DELETE /exchanges/:x ·
 *   POST /bindings · DELETE /bindings/src=…;dstq|dste=…;key=…;args=… · GET /bindings?src=&dstq|dste=&key= ·
 *   PUT /auth/tokens (an OAuth 2.0 token refresh, RabbitMQ 4.1: connection-credential.ts)
 */
import { Amqp10Reader } from "../amqp10/amqp10-decoder.js";
import { encodeAmqp10 } from "../amqp10/amqp10-encoder.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { NULL, str, textOf } from "../amqp10/amqp10-value.js";
import { decodeMessage, encodeMessage, SECTION } from "../amqp10/message-sections.js";
import type { SessionConnection } from "./link-host.js";
import { badRequest, ManagementError, parseTarget } from "./management-bodies.js";
import * as op from "./management-operations.js";

/** The body of a request: its amqp-value section's value (null without a body). */
function requestBody(otherBody: Buffer | undefined): Amqp10Value {
  if (otherBody === undefined) return NULL;
  const section = new Amqp10Reader(otherBody).read();
  if (section.type !== "described" || section.descriptor.type !== "ulong" || Number(section.descriptor.value) !== SECTION.amqpValue) {
    throw badRequest("the request body must be an amqp-value section");
  }
  return section.value;
}

function route(conn: SessionConnection, method: string, target: string, body: Amqp10Value): op.ManagementAnswer {
  const { segments, query } = parseTarget(target);
  const [kind, name, sub] = segments;
  const n = segments.length;
  const wrongMethod = (): ManagementError => new ManagementError("405", `method ${method} not allowed on ${target}`);
  if (kind === "queues" && n === 2) {
    if (method === "GET") return op.getQueue(conn, name!);
    if (method === "PUT") return op.putQueue(conn, name!, body);
    if (method === "DELETE") return op.deleteQueue(conn, name!);
    throw wrongMethod();
  }
  if (kind === "queues" && n === 3 && sub === "messages") {
    if (method === "DELETE") return op.purgeQueue(conn, name!);
    throw wrongMethod();
  }
  if (kind === "exchanges" && n === 2) {
    if (method === "PUT") return op.putExchange(conn, name!, body);
    if (method === "DELETE") return op.deleteExchange(conn, name!);
    throw wrongMethod();
  }
  if (kind === "bindings" && n === 1) {
    if (method === "POST") return op.postBinding(conn, body);
    if (method === "GET") return op.listBindings(conn, query);
    throw wrongMethod();
  }
  if (kind === "bindings" && n === 2) {
    if (method === "DELETE") return op.deleteBinding(conn, name!);
    throw wrongMethod();
  }
  if (kind === "auth" && n === 2 && name === "tokens") {
    if (method === "PUT") return putToken(conn, body);
    throw wrongMethod();
  }
  throw new ManagementError("404", `no management resource at ${target}`);
}

/** PUT /auth/tokens: the body is the new token as binary (RabbitMQ 4.1); 204 once the connection has checked it. */
function putToken(conn: SessionConnection, body: Amqp10Value): op.ManagementAnswer {
  if (body.type !== "binary") throw badRequest(`the new token must be binary, not ${body.type}`);
  return conn.credential.refresh(body.value.toString("utf8")).then(() => ({ status: "204", body: NULL }));
}

/** A refusal as its response; anything but a ManagementError is rethrown. */
function failed(conn: SessionConnection, err: unknown, method: string | undefined, target: string | undefined): op.ManagementResponse {
  if (!(err instanceof ManagementError)) throw err;
  conn.log.info("AMQP 1.0 management request failed", { method, target, status: err.status, reason: err.reason });
  return { status: err.status, body: str(err.reason) };
}

function responseMessage(messageId: Amqp10Value | undefined, response: op.ManagementResponse): Buffer[] {
  const pieces = encodeMessage({
    properties: { subject: str(response.status), ...(messageId !== undefined ? { correlationId: messageId } : {}) },
    applicationProperties: [[str("http:response"), str("1.1")]],
  });
  pieces.push(encodeAmqp10({ type: "described", descriptor: { type: "ulong", value: BigInt(SECTION.amqpValue) }, value: response.body }));
  return pieces;
}

/**
 * Answers one request (a whole message): the response message as pieces to transfer, or a promise
 * of them when the queue is led by another worker (that promise never rejects: a failure there is
 * a response too, 500 for what is no refusal). Throws Amqp10DecodeError for a message that is not
 * one, and an Amqp1Error of scope "session" for a missing permission (RabbitMQ 4 ends the session
 * then; permissions are checked before any round trip).
 */
export function answerRequest(conn: SessionConnection, request: Buffer): Buffer[] | Promise<Buffer[]> {
  const m = decodeMessage(request);
  const props = m.properties ?? {};
  const method = textOf(props.subject);
  const target = textOf(props.to);
  let answer: op.ManagementAnswer;
  try {
    if (method === undefined || target === undefined) throw badRequest("a management request needs its method as subject and its path as to");
    if (textOf(props.replyTo) !== "$me") throw badRequest("a management request's reply-to must be $me (the link pair's receiving link)");
    answer = route(conn, method, target, requestBody(m.otherBody));
  } catch (err) {
    answer = failed(conn, err, method, target);
  }
  if (!(answer instanceof Promise)) return responseMessage(props.messageId, answer);
  return answer.then(
    (r) => responseMessage(props.messageId, r),
    (err: unknown) => {
      if (err instanceof ManagementError) return responseMessage(props.messageId, failed(conn, err, method, target));
      conn.log.warn("AMQP 1.0 management request failed on the queue's leader", { method, target, error: String(err) });
      return responseMessage(props.messageId, { status: "500", body: str(err instanceof Error ? err.message : String(err)) });
    },
  );
}
