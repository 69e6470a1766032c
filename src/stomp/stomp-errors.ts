/**
 * The ERROR frames' `message` headers and body texts, as rabbitmq_stomp words them (recorded
 * against RabbitMQ 3.10.8, docs/STOMP.md). An ERROR is always followed by closing the
 * connection (STOMP 1.2 §ERROR: "the server MUST then close the connection").
 */
import { BrokerError } from "../errors/broker-error.js";

export interface StompError {
  readonly message: string;
  readonly detail: string;
}

export const stompError = (message: string, detail: string): StompError => ({ message, detail });

export const LOGIN_FIRST = stompError("Illegal command", "You must log in using CONNECT first");
export const ALREADY_CONNECTED = stompError("Unexpected CONNECT", "STOMP connection already established");
export const VERSION_MISMATCH = stompError("Version mismatch", "Supported versions are 1.0,1.1,1.2\n");

export const accessRefused = (user: string): StompError => stompError("Bad CONNECT", `Access refused for user '${user}'\n`);
export const vhostDenied = (vhost: string): StompError => stompError("Bad CONNECT", `Virtual host '${vhost}' access denied`);
export const badCommand = (command: string): StompError => stompError("Bad command", `Could not interpret command "${command}"\n`);
export const missingHeader = (command: string, header: string): StompError => stompError("Invalid header", `"${command}" must include a valid "${header}" header\n`);
export const badTransaction = (tx: string): StompError => stompError("Bad transaction", `Invalid transaction identifier: "${tx}"\n`);
export const duplicateSubscription = (id: string): StompError => stompError("Duplicated subscription identifier", `A subscription identified by '${id}' already exists.`);
export const noSubscription = (id: string): StompError =>
  stompError("No subscription found", `UNSUBSCRIBE must refer to an existing subscription.\nSubscription to "id='${id}'" not found.\n`);
/**
 * A subscription the server ended (its queue deleted, its leader lost, or its declare lost to
 * another node's in a spread cluster): RabbitMQ 3.10.8 sends this ERROR with a `subscription`
 * header and, unlike every other ERROR, keeps the connection open.
 */
export const serverCancelled = (id: string): StompError =>
  stompError("Server cancelled subscription", `The server has canceled a subscription.\nNo more messages will be delivered for "id='${id}'".\n`);
export const unknownDestination = (d: string): StompError =>
  stompError("Unknown destination", `'${d}' is not a valid destination.\nValid destination types are: /temp-queue, /exchange, /topic, /queue, /amq/queue, /reply-queue/.\n`);

/**
 * A refusal by the domain (a missing queue or exchange, access refused, a bad argument) as
 * RabbitMQ's STOMP adapter reports the channel error: `message` is the AMQP error's name, the
 * body its reply text ("NOT_FOUND - no queue 'q' in vhost '/'").
 */
export function domainRefusal(err: unknown): StompError {
  if (err instanceof BrokerError) return stompError(err.spec.amqpName.toLowerCase(), err.replyText);
  return stompError("Processing error", err instanceof Error ? err.message : String(err));
}
