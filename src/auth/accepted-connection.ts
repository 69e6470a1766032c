/**
 * What every AMQP connection (0-9-1 and 1.0, which share a port and RabbitMQ's record fields)
 * knows from the moment its socket is accepted, and what its opening then fills in: the peer facts
 * (peer-address.ts) and the name RabbitMQ gives the connection, when it connected, and once logged
 * in, its user, permissions, mechanism and vhost. Each protocol's connection extends it, so both
 * read the socket the same way and show the same facts in the management API.
 *
 * Invariant: the peer facts and the name are fixed at construction (an address the socket no
 * longer reports reads "in-memory", as the tests' socket pairs do, which count as loopback).
 */
import type { PermissionChecker } from "./permission-check.js";
import { connectionName, peerOf, type PeerInfo, type SocketAddresses } from "./peer-address.js";

export abstract class AcceptedConnection implements PeerInfo {
  /** RabbitMQ's "peer-host:peer-port -> host:port". */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly peerHost: string;
  readonly peerPort: number;
  readonly isLoopback: boolean;
  readonly connectedAt = Date.now();
  /** Set by the opening: "" until the client named its vhost and was admitted. */
  vhost = "";
  /** Set by the login: "" and null until the client is authenticated. */
  user = "";
  permissions: PermissionChecker | null = null;
  authMechanism = "";

  constructor(
    socket: SocketAddresses,
    readonly tls: boolean,
  ) {
    const peer = peerOf(socket, tls, "in-memory");
    this.host = peer.host;
    this.port = peer.port;
    this.peerHost = peer.peerHost;
    this.peerPort = peer.peerPort;
    this.isLoopback = peer.isLoopback;
    this.name = connectionName(peer);
  }
}
