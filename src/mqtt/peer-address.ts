/** Loopback peers, as RabbitMQ's rabbit_net:is_loopback: loopback_users may connect only from these. */
export function isLoopbackPeer(address: string): boolean {
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || a.startsWith("127.");
}
