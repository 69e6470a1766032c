/**
 * Opens an endpoint for a URI — the local broker for a host-less `amqp://`, another broker over
 * TCP/TLS otherwise — and, for a list of URIs (RabbitMQ's src-uri/dest-uri and upstream `uri`
 * may be lists), tries them in turn, starting after the one that failed last, so a link whose
 * broker is down moves on to the next.
 */
import type { Broker } from "../broker/index.js";
import { parseAmqpUri } from "./amqp-uri.js";
import type { Endpoint, EndpointOptions } from "./endpoint.js";
import { openLocalEndpoint } from "./local-endpoint.js";
import { openRemoteEndpoint } from "./remote-endpoint.js";

export async function openEndpoint(broker: Broker, uri: string, opts: EndpointOptions): Promise<Endpoint> {
  const parsed = parseAmqpUri(uri);
  return parsed.local ? openLocalEndpoint(broker, parsed, opts) : openRemoteEndpoint(parsed, opts);
}

/** Tries a list of URIs in turn; remembers where to start next time. */
export class UriList {
  private next = 0;

  constructor(readonly uris: readonly string[]) {
    if (uris.length === 0) throw new Error("a link needs at least one URI");
  }

  /** Opens the first URI that connects, from where the last attempt stopped; throws the last failure. */
  async open(broker: Broker, opts: EndpointOptions): Promise<{ endpoint: Endpoint; uri: string }> {
    let lastError: unknown = null;
    for (let i = 0; i < this.uris.length; i++) {
      const uri = this.uris[(this.next + i) % this.uris.length]!;
      try {
        const endpoint = await openEndpoint(broker, uri, opts);
        this.next = (this.next + i) % this.uris.length;
        return { endpoint, uri };
      } catch (err) {
        lastError = err;
      }
    }
    this.next = (this.next + 1) % this.uris.length;
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }
}
