/**
 * Which vhost an MQTT login lands in, in RabbitMQ's order. A client with a verified TLS certificate
 * is first looked up by the certificate's name in the global runtime parameter
 * `mqtt_default_vhosts` (`{"CN=sensor-1,O=Acme": "devices"}`), then in the port mapping below,
 * then as follows. Otherwise: a `vhost:user` user name names it (split
 * at the last colon: a vhost may hold colons, a user name then may not); otherwise the global
 * runtime parameter `mqtt_port_to_vhost_mapping` (`{"1883": "vhost-a", "8883": "vhost-b"}`, set
 * with PUT /api/global-parameters/mqtt_port_to_vhost_mapping) maps the listener's port to one;
 * otherwise mqtt.vhost. The parameter is read at each CONNECT, so a change applies to the next
 * connection.
 */

export const PORT_TO_VHOST_PARAMETER = "mqtt_port_to_vhost_mapping";
export const CERT_TO_VHOST_PARAMETER = "mqtt_default_vhosts";

/** RabbitMQ's get_vhost_username: null when the name holds no colon. */
export function splitVhostUser(name: string): { vhost: string; user: string } | null {
  const i = name.lastIndexOf(":");
  return i < 0 ? null : { vhost: name.slice(0, i), user: name.slice(i + 1) };
}

/** The vhost a global parameter's JSON object maps `key` to, or null (no parameter, no entry, or not a string). */
function mapped(globals: ReadonlyMap<string, unknown>, parameter: string, key: string): string | null {
  const mapping = globals.get(parameter);
  if (typeof mapping !== "object" || mapping === null || Array.isArray(mapping)) return null;
  const vhost = (mapping as Record<string, unknown>)[key];
  return typeof vhost === "string" ? vhost : null;
}

export function vhostOfLogin(username: string, port: number, defaultVhost: string, globals: ReadonlyMap<string, unknown>, certName: string | null = null): { vhost: string; user: string } {
  if (certName !== null) {
    const vhost = mapped(globals, CERT_TO_VHOST_PARAMETER, certName) ?? mapped(globals, PORT_TO_VHOST_PARAMETER, String(port));
    if (vhost !== null) return { vhost, user: username };
    return splitVhostUser(username) ?? { vhost: defaultVhost, user: username };
  }
  return splitVhostUser(username) ?? { vhost: mapped(globals, PORT_TO_VHOST_PARAMETER, String(port)) ?? defaultVhost, user: username };
}
