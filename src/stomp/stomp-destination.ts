/**
 * STOMP destinations as rabbitmq_stomp maps them onto exchanges and queues:
 *   /queue/q            SEND to the default exchange, key q; SUBSCRIBE to queue q (declared durable)
 *   /amq/queue/q        the same, but q must already exist (nothing declared)
 *   /topic/key          SEND to amq.topic with key; SUBSCRIBE through a queue of its own bound to it
 *   /exchange/x[/key]   SEND to x with key; SUBSCRIBE through a queue of its own bound to x
 *   /temp-queue/name    a queue private to the connection, made on first use (reply-to)
 *   /reply-queue/q      SEND to the default exchange, key q (how a temp queue is named to others)
 * Names are URL-decoded segments as RabbitMQ does ("%2F" is a slash inside a name).
 */

export type Destination =
  | { readonly kind: "queue"; readonly queue: string }
  | { readonly kind: "amq-queue"; readonly queue: string }
  | { readonly kind: "topic"; readonly key: string }
  | { readonly kind: "exchange"; readonly exchange: string; readonly key: string }
  | { readonly kind: "temp-queue"; readonly name: string }
  | { readonly kind: "reply-queue"; readonly queue: string };

export const TOPIC_EXCHANGE = "amq.topic";

function decode(s: string): string | null {
  if (s.indexOf("%") < 0) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** One name without further slashes, non-empty. */
function single(rest: string): string | null {
  if (rest.length === 0 || rest.indexOf("/") >= 0) return null;
  return decode(rest);
}

/** The destination a header names; null when it is none RabbitMQ knows. */
export function parseDestination(d: string): Destination | null {
  if (d.startsWith("/queue/")) {
    const queue = single(d.slice(7));
    return queue === null ? null : { kind: "queue", queue };
  }
  if (d.startsWith("/amq/queue/")) {
    const queue = single(d.slice(11));
    return queue === null ? null : { kind: "amq-queue", queue };
  }
  if (d.startsWith("/topic/")) {
    const key = decode(d.slice(7));
    return key === null || key.length === 0 ? null : { kind: "topic", key };
  }
  if (d.startsWith("/exchange/")) {
    const rest = d.slice(10);
    const slash = rest.indexOf("/");
    const exchange = decode(slash < 0 ? rest : rest.slice(0, slash));
    const key = slash < 0 ? "" : decode(rest.slice(slash + 1));
    return exchange === null || exchange.length === 0 || key === null ? null : { kind: "exchange", exchange, key };
  }
  if (d.startsWith("/temp-queue/")) {
    const name = single(d.slice(12));
    return name === null ? null : { kind: "temp-queue", name };
  }
  if (d.startsWith("/reply-queue/")) {
    const queue = decode(d.slice(13));
    return queue === null || queue.length === 0 ? null : { kind: "reply-queue", queue };
  }
  return null;
}

/** The destination header of a MESSAGE for what it was published to (RabbitMQ's rule). */
export function destinationOf(exchange: string, routingKey: string): string {
  if (exchange === "") return `/queue/${routingKey}`;
  if (exchange === TOPIC_EXCHANGE) return `/topic/${routingKey}`;
  return `/exchange/${exchange}/${routingKey}`;
}
