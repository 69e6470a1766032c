/** Socket addresses as RabbitMQ shows and checks them. */

/** An IPv4-mapped IPv6 address ("::ffff:10.0.0.1") as plain IPv4. */
export function normaliseHost(addr: string): string {
  return addr.startsWith("::ffff:") ? addr.slice(7) : addr;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback, as RabbitMQ's rabbit_net:is_loopback. */
export function isLoopbackAddress(addr: string): boolean {
  const a = normaliseHost(addr);
  return a === "::1" || a.startsWith("127.") || a === "in-memory";
}
