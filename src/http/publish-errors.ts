/**
 * POST …/publish runs basic.publish, and RabbitMQ 3.10 reports what the channel refused as a
 * 400 bad_request whose reason is the AMQP code and reply text ("404 NOT_FOUND - no exchange 'x'
 * in vhost '/'"). A permission refusal stays the spec's 403 (its reason the ACCESS_REFUSED text).
 */
import { BrokerError } from "../errors/broker-error.js";

export function asPublishError<T>(publish: () => T): T {
  try {
    return publish();
  } catch (err) {
    if (!(err instanceof BrokerError) || err.kind === "accessRefused" || err.kind === "badRequest") throw err;
    throw new BrokerError("badRequest", `${err.spec.amqpCode} ${err.replyText}`, { cause: err });
  }
}
