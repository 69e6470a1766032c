/**
 * A spread cluster's node links over the cluster's transport (docs/CLUSTERING.md, "A spread
 * cluster over etcd", "Encrypted links: `--cluster-tls`"): plain TCP, or with `--cluster-tls` TLS
 * exactly as the replication connections are carried (replication-transport.ts: the accepting
 * node presents `--tls-cert`, the connecting node verifies it against `--tls-ca` and the
 * advertised address). The link protocol itself (src/node-link) is unchanged: it runs on the
 * socket once the TLS handshake is over, and the cluster secret's handshake on top still proves
 * both ends are members. Used for a node's own link server and an adopted store's.
 */
import type { Server } from "node:net";
import type { Broker } from "../broker/index.js";
import { acceptNodeLink, connectNodeLink, type LeaderLink, type NodeLinkOptions } from "../node-link/node-link.js";
import type { ReplicationTransport } from "./replication-transport.js";

/** A server accepting node links for `broker` over `transport` (listen on it). */
export function listenForSpreadLinks(transport: ReplicationTransport, broker: Broker, opts: NodeLinkOptions, onError: (err: Error) => void): Server {
  return transport.server((socket) => {
    // A TLS socket that errs after its handshake (a reset, a bad record) must not throw unhandled: the link sees the close.
    socket.on("error", () => undefined);
    acceptNodeLink(broker, socket, opts).catch(onError);
  });
}

/**
 * How long opening a link may take, TCP connect, TLS and the link's handshake together. Without a
 * bound, an attempt to a node cut off by a real partition (its packets dropped, nothing refused)
 * waits for the kernel's retries, minutes, and the node retries nobody else meanwhile: not the
 * adopter that now serves that node's store at another address, so the node's queues stayed
 * unreachable from this one (seen with a node per network namespace, docs/CLUSTERING.md "On
 * machines of their own"; on loopback a dead port is refused at once and it never showed).
 */
export const LINK_OPEN_TIMEOUT_MS = 2000;

/**
 * The link to the node listening at `host`:`port`, once the transport is ready (TCP connected,
 * or the TLS handshake done and the certificate verified) and the link's own handshake passed.
 * Rejects (the socket destroyed) on any failure of either, or when both take over `timeoutMs`.
 */
export function connectSpreadLink(transport: ReplicationTransport, host: string, port: number, opts: { readonly secret: Buffer; readonly node: string }, timeoutMs = LINK_OPEN_TIMEOUT_MS): Promise<LeaderLink> {
  return new Promise<LeaderLink>((resolve, reject) => {
    let settled = false;
    const failed = (err: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const started = performance.now();
    // Until the transport is ready: after it, the link's handshake carries the rest of the bound (it owns the socket then).
    const timer = setTimeout(() => failed(new Error(`link to ${host}:${port} not open within ${timeoutMs} ms`)), timeoutMs);
    const socket = transport.connect(host, port, () => {
      socket.removeListener("error", failed);
      clearTimeout(timer);
      const left = Math.max(1, Math.round(timeoutMs - (performance.now() - started)));
      connectNodeLink(socket, { ...opts, timeoutMs: left }).then((link) => {
        settled = true;
        resolve(link);
      }, (err: Error) => failed(new Error(`link to ${host}:${port} not open within ${timeoutMs} ms: ${err.message}`)));
    });
    socket.once("error", failed);
  });
}
