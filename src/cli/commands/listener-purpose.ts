/** rabbitmqctl's labels (its listeners' protocol_label) for the protocols Coney listens on: status and cluster_status print them. */
const PURPOSE: Record<string, string> = {
  amqp: "AMQP 0-9-1",
  http: "HTTP API",
  https: "HTTP API over TLS (HTTPS)",
  mqtt: "MQTT",
  stomp: "STOMP",
  "http/web-mqtt": "MQTT over WebSocket",
  "http/web-stomp": "STOMP over WebSocket",
  "http/prometheus": "Prometheus exporter API over HTTP",
  "https/prometheus": "Prometheus exporter API over TLS (HTTPS)",
};

/** The purpose rabbitmqctl prints for a listener of `protocol` (the protocol itself when it has no label, as RabbitMQ's stream listener). */
export function purposeOf(protocol: string): string {
  return PURPOSE[protocol] ?? protocol;
}
