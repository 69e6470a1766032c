/**
 * Which vhost an MQTT login lands in, in RabbitMQ's order: a `vhost:user` user name names it (split
 * at the last colon: a vhost may hold colons, a user name then may not); otherwise the global
 * runtime parameter `mqtt_port_to_vhost_mapping` (`{"1883": "vhost-a", "8883": "vhost-b"}`, set
 * with PUT /api/global-parameters/mqtt_port_to_vhost_mapping) maps the listener's port to one;
 * otherwise mqtt.vhost. The parameter is read at each CONNECT, so a change applies to the next
 * connection.
 */

export const PORT_TO_VHOST_PARAMETER = "mqtt_port_to_vhost_mapping";

/** RabbitMQ's get_vhost_username: null when the name holds no colon. */
export function splitVhostUser(name: string): { vhost: string; user: string } | null {
  const i = name.lastIndexOf(":");
  return i < 0 ? null : { vhost: name.slice(0, i), user: name.slice(i + 1) };
}

/** The vhost of the port in the mapping, or null (no mapping, no entry, or not a string). */
export function vhostOfPort(port: number, globals: ReadonlyMap<string, unknown>): string | null {
  const mapping = globals.get(PORT_TO_VHOST_PARAMETER);
  if (typeof mapping !== "object" || mapping === null || Array.isArray(mapping)) return null;
  const vhost = (mapping as Record<string, unknown>)[String(port)];
  return typeof vhost === "string" ? vhost : null;
}

export function vhostOfLogin(username: string, port: number, defaultVhost: string, globals: ReadonlyMap<string, unknown>): { vhost: string; user: string } {
  return splitVhostUser(username) ?? { vhost: vhostOfPort(port, globals) ?? defaultVhost, user: username };
}
