/**
 * Socket addresses as RabbitMQ shows and checks them, and the peer facts every transport's
 * connection is built from (AMQP, MQTT, Web MQTT, streams): its name, the host/port fields of its
 * record, TLS, and whether loopback_users may log in over it.
 */

/** The addresses a socket reports (TCP, TLS, the one under a WebSocket); absent once it has closed. */
export interface SocketAddresses {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  readonly localAddress?: string | undefined;
  readonly localPort?: number | undefined;
}

/** Where a client connection comes from and arrives at, fixed when the socket is accepted. */
export interface PeerInfo {
  readonly host: string;
  readonly port: number;
  readonly peerHost: string;
  readonly peerPort: number;
  /** A loopback peer (rabbit_net:is_loopback): loopback_users may log in only over these. */
  readonly isLoopback: boolean;
  readonly tls: boolean;
}

/** An IPv4-mapped IPv6 address ("::ffff:10.0.0.1") as plain IPv4. */
export function normaliseHost(addr: string): string {
  return addr.startsWith("::ffff:") ? addr.slice(7) : addr;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback, as RabbitMQ's rabbit_net:is_loopback. */
export function isLoopbackAddress(addr: string): boolean {
  const a = normaliseHost(addr);
  return a === "::1" || a.startsWith("127.") || a === "in-memory";
}

/**
 * The peer facts of an accepted socket, addresses shown as RabbitMQ shows them (IPv4-mapped as
 * plain IPv4). `absent` stands for an address the socket no longer reports ("in-memory" for the
 * AMQP tests' socket pairs, which count as loopback).
 */
export function peerOf(socket: SocketAddresses, tls: boolean, absent = ""): PeerInfo {
  const peerHost = normaliseHost(socket.remoteAddress ?? absent);
  return {
    host: normaliseHost(socket.localAddress ?? absent),
    port: socket.localPort ?? 0,
    peerHost,
    peerPort: socket.remotePort ?? 0,
    isLoopback: isLoopbackAddress(peerHost),
    tls,
  };
}

/** RabbitMQ's connection name: "peer-host:peer-port -> host:port". */
export function connectionName(p: PeerInfo): string {
  return `${p.peerHost}:${p.peerPort} -> ${p.host}:${p.port}`;
}

/** The address fields of a connection record (ConnectionInfo's host, port, peer_host, peer_port), from the peer facts. */
export function peerAddresses(p: PeerInfo): { host: string; port: number; peerHost: string; peerPort: number } {
  return { host: p.host, port: p.port, peerHost: p.peerHost, peerPort: p.peerPort };
}
