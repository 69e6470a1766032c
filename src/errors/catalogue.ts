/**
 * The error catalogue: one entry per RabbitMQ meaning. Every error the broker raises is a
 * BrokerError whose `kind` names an entry here; the AMQP reply code, whether it closes the
 * channel or the connection, the HTTP status and the `error` field of the HTTP body are all
 * read from this one table (src/amqp/ and src/http/ translate, nothing else decides).
 *
 * Invariant (checked by test/errors/catalogue.test.ts): every `amqpCode` is a reply code of the
 * vendored spec, and `level` equals the spec's soft-error (channel) / hard-error (connection)
 * class for that code.
 */
export interface ErrorSpec {
  /** AMQP 0-9-1 reply code sent in channel.close / connection.close. */
  readonly amqpCode: number;
  /** RabbitMQ's name for the code, the prefix of every reply text ("NOT_FOUND - ..."). */
  readonly amqpName: string;
  /** Which close it causes: the spec's soft errors close a channel, hard errors the connection. */
  readonly level: "channel" | "connection";
  /** HTTP status when the same error reaches the management API. */
  readonly httpStatus: number;
  /** The `error` field of the management API's `{"error", "reason"}` body. */
  readonly httpError: string;
}

export const ERROR_CATALOGUE = {
  // --- AMQP soft errors (channel level) ---
  contentTooLarge: { amqpCode: 311, amqpName: "CONTENT_TOO_LARGE", level: "channel", httpStatus: 413, httpError: "payload_too_large" },
  noRoute: { amqpCode: 312, amqpName: "NO_ROUTE", level: "channel", httpStatus: 400, httpError: "bad_request" },
  noConsumers: { amqpCode: 313, amqpName: "NO_CONSUMERS", level: "channel", httpStatus: 400, httpError: "bad_request" },
  /**
   * Permission pattern refused, reserved `amq.` name, default exchange: the spec makes this 403
   * over HTTP; the body keeps RabbitMQ's `not_authorised` (it never sends "access_refused").
   */
  accessRefused: { amqpCode: 403, amqpName: "ACCESS_REFUSED", level: "channel", httpStatus: 403, httpError: "not_authorised" },
  notFound: { amqpCode: 404, amqpName: "NOT_FOUND", level: "channel", httpStatus: 404, httpError: "not_found" },
  /** Exclusive queue of another connection: RabbitMQ's management API answers 400. */
  resourceLocked: { amqpCode: 405, amqpName: "RESOURCE_LOCKED", level: "channel", httpStatus: 400, httpError: "bad_request" },
  /** Inequivalent redeclare, if-unused / if-empty, invalid arguments, unknown delivery tag. */
  preconditionFailed: { amqpCode: 406, amqpName: "PRECONDITION_FAILED", level: "channel", httpStatus: 400, httpError: "bad_request" },
  // --- AMQP hard errors (connection level) ---
  connectionForced: { amqpCode: 320, amqpName: "CONNECTION_FORCED", level: "connection", httpStatus: 503, httpError: "connection_forced" },
  invalidPath: { amqpCode: 402, amqpName: "INVALID_PATH", level: "connection", httpStatus: 400, httpError: "bad_request" },
  frameError: { amqpCode: 501, amqpName: "FRAME_ERROR", level: "connection", httpStatus: 400, httpError: "bad_request" },
  syntaxError: { amqpCode: 502, amqpName: "SYNTAX_ERROR", level: "connection", httpStatus: 400, httpError: "bad_request" },
  /** Unknown exchange type, a second channel.open, a method in the wrong state. */
  commandInvalid: { amqpCode: 503, amqpName: "COMMAND_INVALID", level: "connection", httpStatus: 400, httpError: "bad_request" },
  channelError: { amqpCode: 504, amqpName: "CHANNEL_ERROR", level: "connection", httpStatus: 400, httpError: "bad_request" },
  unexpectedFrame: { amqpCode: 505, amqpName: "UNEXPECTED_FRAME", level: "connection", httpStatus: 400, httpError: "bad_request" },
  resourceError: { amqpCode: 506, amqpName: "RESOURCE_ERROR", level: "connection", httpStatus: 503, httpError: "resource_error" },
  /** Vhost access refused at connection.open, consumer tag reuse. */
  notAllowed: { amqpCode: 530, amqpName: "NOT_ALLOWED", level: "connection", httpStatus: 403, httpError: "not_allowed" },
  notImplemented: { amqpCode: 540, amqpName: "NOT_IMPLEMENTED", level: "connection", httpStatus: 501, httpError: "not_implemented" },
  internalError: { amqpCode: 541, amqpName: "INTERNAL_ERROR", level: "connection", httpStatus: 500, httpError: "internal_server_error" },
  // --- Management-API-only meanings; over AMQP they would be an internal error ---
  /** Malformed request: bad JSON, wrong types, missing keys. */
  badRequest: { amqpCode: 406, amqpName: "PRECONDITION_FAILED", level: "channel", httpStatus: 400, httpError: "bad_request" },
  /** A page number or size out of bounds (RabbitMQ's own error name for it). */
  invalidPagination: { amqpCode: 406, amqpName: "PRECONDITION_FAILED", level: "channel", httpStatus: 400, httpError: "invalid_pagination_parameters" },
  /** A page past the last one. */
  pageOutOfRange: { amqpCode: 406, amqpName: "PRECONDITION_FAILED", level: "channel", httpStatus: 400, httpError: "page_out_of_range" },
  /** A management path that names nothing. RabbitMQ's exact 404 body for unknown objects. */
  objectNotFound: { amqpCode: 404, amqpName: "NOT_FOUND", level: "channel", httpStatus: 404, httpError: "Object Not Found" },
  /** Failed HTTP authentication (RabbitMQ spells it with a z here). */
  notAuthorized: { amqpCode: 403, amqpName: "ACCESS_REFUSED", level: "channel", httpStatus: 401, httpError: "not_authorized" },
  /** Authenticated but lacking the tag or vhost access a route needs (spec: 403, not RabbitMQ's 401). */
  forbidden: { amqpCode: 403, amqpName: "ACCESS_REFUSED", level: "channel", httpStatus: 403, httpError: "not_authorised" },
  methodNotAllowed: { amqpCode: 540, amqpName: "NOT_IMPLEMENTED", level: "connection", httpStatus: 405, httpError: "method_not_allowed" },
  /** Failed-login throttling of a client address (src/auth/login-throttle.ts). */
  tooManyLogins: { amqpCode: 403, amqpName: "ACCESS_REFUSED", level: "channel", httpStatus: 429, httpError: "too_many_requests" },
  conflict: { amqpCode: 406, amqpName: "PRECONDITION_FAILED", level: "channel", httpStatus: 409, httpError: "conflict" },
  payloadTooLarge: { amqpCode: 311, amqpName: "CONTENT_TOO_LARGE", level: "channel", httpStatus: 413, httpError: "payload_too_large" },
  tooManyRequests: { amqpCode: 530, amqpName: "NOT_ALLOWED", level: "connection", httpStatus: 429, httpError: "too_many_requests" },
  unsupportedMediaType: { amqpCode: 406, amqpName: "PRECONDITION_FAILED", level: "channel", httpStatus: 415, httpError: "unsupported_media_type" },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorKind = keyof typeof ERROR_CATALOGUE;
