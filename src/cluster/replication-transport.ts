/**
 * How replication connections are carried (docs/CLUSTERING.md, "Replication"): plain TCP, or
 * with `--cluster-tls` TLS where the leader presents the node's --tls-cert and a follower checks it
 * against --tls-ca (or the system's CAs) and the leader's advertised address. TLS gives privacy
 * and proves the leader's identity to the follower; the secret's handshake on top
 * (replication-auth.ts) proves both ends are cluster members, so followers need no certificate.
 */
import { readFileSync } from "node:fs";
import { connect as netConnect, createServer as netServer, isIP, type Server, type Socket } from "node:net";
import { connect as tlsConnect, createServer as tlsServer } from "node:tls";
import type { ConeyConfig } from "../config/config.js";

export interface ReplicationTransport {
  readonly tls: boolean;
  /** The leader's listener; `accept` gets each connection once it is ready to carry frames. */
  server(accept: (socket: Socket) => void): Server;
  /** A follower's connection; `ready` runs once frames may be sent (after the TLS handshake). */
  connect(host: string, port: number, ready: () => void): Socket;
}

export function replicationTransport(config: Pick<ConeyConfig, "clusterTls" | "tlsCert" | "tlsKey" | "tlsCa">): ReplicationTransport {
  if (!config.clusterTls) {
    return {
      tls: false,
      server: (accept) => netServer(accept),
      connect: (host, port, ready) => netConnect({ host, port }, ready),
    };
  }
  // Read once at start: a certificate that cannot be read stops the node with the file's error.
  const cert = readFileSync(config.tlsCert!);
  const key = readFileSync(config.tlsKey!);
  const ca = config.tlsCa === null ? undefined : readFileSync(config.tlsCa);
  return {
    tls: true,
    server: (accept) => tlsServer({ cert, key }, accept),
    // SNI carries host names only; an IP address is still checked against the certificate's IP SANs.
    connect: (host, port, ready) => tlsConnect({ host, port, ...(ca ? { ca } : {}), ...(isIP(host) === 0 ? { servername: host } : {}) }, ready),
  };
}
