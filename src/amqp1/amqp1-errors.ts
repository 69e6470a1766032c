/**
 * AMQP 1.0 error conditions (part 2 §2.8.15–2.8.18) and where they end: a connection, a session
 * or a link. Amqp1Error carries the condition and description; `scope` says what the error closes
 * (close, end or detach with the error). BrokerErrors from the domain map onto conditions as
 * RabbitMQ 4 maps its AMQP 0-9-1 reply codes (rabbit_amqp_session: 403 → unauthorized-access,
 * 404 → not-found, 405 → resource-locked, 406 → precondition-failed).
 */
import { BrokerError } from "../errors/broker-error.js";

export const CONDITION = {
  internalError: "amqp:internal-error",
  notFound: "amqp:not-found",
  unauthorizedAccess: "amqp:unauthorized-access",
  decodeError: "amqp:decode-error",
  resourceLimitExceeded: "amqp:resource-limit-exceeded",
  notAllowed: "amqp:not-allowed",
  invalidField: "amqp:invalid-field",
  notImplemented: "amqp:not-implemented",
  resourceLocked: "amqp:resource-locked",
  preconditionFailed: "amqp:precondition-failed",
  resourceDeleted: "amqp:resource-deleted",
  illegalState: "amqp:illegal-state",
  frameSizeTooSmall: "amqp:frame-size-too-small",
  connectionForced: "amqp:connection:forced",
  framingError: "amqp:connection:framing-error",
  windowViolation: "amqp:session:window-violation",
  errantLink: "amqp:session:errant-link",
  handleInUse: "amqp:session:handle-in-use",
  unattachedHandle: "amqp:session:unattached-handle",
  detachForced: "amqp:link:detach-forced",
  transferLimitExceeded: "amqp:link:transfer-limit-exceeded",
  messageSizeExceeded: "amqp:link:message-size-exceeded",
} as const;

export type Condition = (typeof CONDITION)[keyof typeof CONDITION];
export type ErrorScope = "connection" | "session" | "link";

export class Amqp1Error extends Error {
  constructor(
    readonly condition: Condition,
    readonly description: string,
    readonly scope: ErrorScope = "connection",
  ) {
    super(description);
  }
}

/** A domain error as the condition RabbitMQ 4 gives it, ending `scope`. */
export function fromBrokerError(err: unknown, scope: ErrorScope): Amqp1Error {
  if (err instanceof Amqp1Error) return err;
  if (!(err instanceof BrokerError)) return new Amqp1Error(CONDITION.internalError, err instanceof Error ? err.message : String(err), scope);
  const byCode: Record<number, Condition> = { 403: CONDITION.unauthorizedAccess, 404: CONDITION.notFound, 405: CONDITION.resourceLocked, 406: CONDITION.preconditionFailed, 530: CONDITION.notAllowed, 540: CONDITION.notImplemented, 311: CONDITION.messageSizeExceeded };
  return new Amqp1Error(byCode[err.spec.amqpCode] ?? CONDITION.internalError, err.reason, scope);
}
