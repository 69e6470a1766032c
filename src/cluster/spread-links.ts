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
 * The link to the node listening at `host`:`port`, once the transport is ready (TCP connected,
 * or the TLS handshake done and the certificate verified) and the link's own handshake passed.
 * Rejects (the socket destroyed) on any failure of either.
 */
export function connectSpreadLink(transport: ReplicationTransport, host: string, port: number, opts: { readonly secret: Buffer; readonly node: string }): Promise<LeaderLink> {
  return new Promise<LeaderLink>((resolve, reject) => {
    const failed = (err: Error): void => {
      socket.destroy();
      reject(err);
    };
    const socket = transport.connect(host, port, () => {
      socket.removeListener("error", failed);
      connectNodeLink(socket, opts).then(resolve, failed);
    });
    socket.once("error", failed);
  });
}
