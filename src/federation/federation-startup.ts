/**
 * Builds the federation service for a starting broker (start-broker.ts): upstreams are opened
 * through src/links — another broker over AMQP (the client library is loaded on first use, so a
 * broker without federation does not load it), or this broker itself for a URI with no host —
 * and the downstream is always this broker's local endpoint, held while a memory or disk alarm is
 * on (the upstream queue keeps collecting meanwhile).
 */
import { clusterNameOf, type Broker, type ResourceAlarms } from "../broker/index.js";
import { parseAmqpUri, UriError } from "../links/amqp-uri.js";
import type { EndpointOptions } from "../links/endpoint.js";
import { openLocalEndpoint } from "../links/local-endpoint.js";
import type { Logger } from "../logging/logger.js";
import { FederationService } from "./federation-service.js";

/** A URI with no vhost path (`amqp://host`) means the downstream's vhost (RabbitMQ's amqp_uri:parse/2). */
function withDefaultVhost(uri: string, vhost: string): string {
  const m = /^(amqps?:\/\/[^/?#]*)(\?.*)?$/i.exec(uri);
  return m ? `${m[1]}/${encodeURIComponent(vhost)}${m[2] ?? ""}` : uri;
}

/** `alarms`: this node's memory and disk alarms, which hold what links publish into it (as a blocked connection). */
export function createFederation(broker: Broker, configuredClusterName: string, logger: Logger, alarms: ResourceAlarms | null = null): FederationService {
  return new FederationService({
    broker,
    logger,
    cluster: () => clusterNameOf(broker.globalParameters, configuredClusterName),
    checkUri: (uri) => {
      try {
        parseAmqpUri(uri);
        return null;
      } catch (err) {
        if (err instanceof UriError) return `{${err.term},${JSON.stringify(uri)}}`;
        throw err;
      }
    },
    openUpstream: async (uri: string, vhost: string, opts: EndpointOptions) => {
      const parsed = parseAmqpUri(withDefaultVhost(uri, vhost));
      if (parsed.local) return openLocalEndpoint(broker, parsed, opts);
      return (await import("../links/remote-endpoint.js")).openRemoteEndpoint(parsed, opts);
    },
    upstreamVhost: (uri: string, vhost: string) => {
      try {
        return parseAmqpUri(withDefaultVhost(uri, vhost)).vhost;
      } catch {
        return vhost;
      }
    },
    openDownstream: async (vhost: string, opts: EndpointOptions) => openLocalEndpoint(broker, parseAmqpUri(`amqp:///${encodeURIComponent(vhost)}`), { ...opts, alarms }),
  });
}
