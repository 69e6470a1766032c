/**
 * BrokerError: the one error type of the domain. `reason` is RabbitMQ's text without the
 * reply-name prefix ("no queue 'q' in vhost '/'"); transports add what their protocol needs:
 * AMQP sends "NOT_FOUND - no queue 'q' in vhost '/'", HTTP sends {"error":"not_found","reason":...}.
 */
import { ERROR_CATALOGUE, type ErrorKind, type ErrorSpec } from "./catalogue.js";

export class BrokerError extends Error {
  readonly kind: ErrorKind;
  readonly reason: string;
  /**
   * The HTTP body's `reason` when it is not the text: RabbitMQ sends an Erlang tuple as a JSON
   * array (`["not_boolean","troo"]`, `["no_such_vhost","v"]`), and clients match on it.
   */
  readonly httpReason: unknown;

  constructor(kind: ErrorKind, reason: string, options?: { cause?: unknown; httpReason?: unknown }) {
    super(reason, options);
    this.name = "BrokerError";
    this.kind = kind;
    this.reason = reason;
    this.httpReason = options?.httpReason ?? reason;
  }

  get spec(): ErrorSpec {
    return ERROR_CATALOGUE[this.kind];
  }

  /** The AMQP reply text, e.g. "NOT_FOUND - no queue 'q' in vhost '/'". */
  get replyText(): string {
    return `${this.spec.amqpName} - ${this.reason}`;
  }
}

/** Erlang-style quoting RabbitMQ uses in texts: "queue 'q' in vhost '/'". */
export function describeResource(kind: "queue" | "exchange", name: string, vhost: string): string {
  return `${kind} '${name}' in vhost '${vhost}'`;
}

export const notFound = (kind: "queue" | "exchange", name: string, vhost: string): BrokerError =>
  new BrokerError("notFound", `no ${describeResource(kind, name, vhost)}`);

/** A queue whose home node (its leader's process) is down or not linked: RabbitMQ's 404 for a durable classic queue on a stopped node. */
export const homeNodeDown = (node: string, name: string, vhost: string): BrokerError =>
  new BrokerError("notFound", `home node '${node}' of durable ${describeResource("queue", name, vhost)} is down or inaccessible`);

export const accessRefused = (kind: "queue" | "exchange" | "topic", name: string, vhost: string, user: string): BrokerError =>
  new BrokerError("accessRefused", `access to ${kind} '${name}' in vhost '${vhost}' refused for user '${user}'`);

export const preconditionFailed = (reason: string): BrokerError => new BrokerError("preconditionFailed", reason);

/** A bad request whose RabbitMQ reason is an Erlang tuple, e.g. {not_boolean, "troo"}: sent as a JSON array. */
export const badRequestTerm = (tag: string, value: unknown): BrokerError =>
  new BrokerError("badRequest", `${tag}: ${JSON.stringify(value)}`, { httpReason: [tag, value] });

/**
 * A declare over the vhost's max-queues limit: a precondition to AMQP 0-9-1 and the HTTP API, but
 * its own status where RabbitMQ 4 distinguishes it (queue_limit_exceeded: 403 on the AMQP 1.0
 * /management node, rabbit_amqp_management).
 */
export class QueueLimitReached extends BrokerError {
  constructor(reason: string) {
    super("preconditionFailed", reason);
  }
}
