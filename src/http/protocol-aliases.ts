/**
 * The protocol names a health check may ask for, mapped onto listener protocols the way
 * RabbitMQ's protocol-listener check normalises them (rabbit_mgmt_wm_health_check_protocol_listener):
 * case-insensitive, versioned spellings fold into the protocol family, `…s`/`+tls` into `…/ssl`,
 * and the management aliases into `http`. A name with no alias stands for itself.
 */
const families: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["amqp", ["amqp091", "amqp0.9.1", "amqp0-9-1", "amqp0_9_1", "amqp10", "amqp1.0", "amqp1-0", "amqp1_0"]],
  ["amqp/ssl", ["amqps"]],
  ["mqtt", ["mqtt3.1", "mqtt3.1.1", "mqtt31", "mqtt311", "mqtt3_1", "mqtt3_1_1"]],
  ["mqtt/ssl", ["mqtts", "mqtt+tls", "mqtt+ssl"]],
  ["stomp", ["stomp1.0", "stomp1.1", "stomp1.2", "stomp10", "stomp11", "stomp12", "stomp1_0", "stomp1_1", "stomp1_2"]],
  ["stomp/ssl", ["stomps", "stomp+tls", "stomp+ssl"]],
  ["http", ["http1", "http1.1", "http_api", "management", "management_ui", "ui"]],
  ["clustering", ["cli", "distribution"]],
  ["clustering/ssl", ["cli/ssl", "cli/tls", "distribution/ssl", "distribution/tls"]],
];

const aliases: ReadonlyMap<string, string> = new Map(families.flatMap(([protocol, names]) => names.map((n) => [n, protocol] as const)));

/** The listener protocol a requested name stands for. */
export function listenerProtocol(requested: string): string {
  const name = requested.trim().toLowerCase();
  return aliases.get(name) ?? name;
}
