/**
 * The server-properties table of connection.start, with RabbitMQ's capabilities table: clients
 * (amqplib, the Java client, …) enable features such as publisher confirms and consumer cancel
 * notifications only when the server announces them here.
 */
import type { FieldTable } from "../../broker/values/field-value.js";
import { PRODUCT, VERSION } from "../../broker/index.js";

export function serverProperties(clusterName: string): FieldTable {
  return {
    capabilities: {
      publisher_confirms: true,
      exchange_exchange_bindings: true,
      "basic.nack": true,
      consumer_cancel_notify: true,
      "connection.blocked": true,
      consumer_priorities: true,
      authentication_failure_close: true,
      per_consumer_qos: true,
      direct_reply_to: true,
    },
    cluster_name: clusterName,
    copyright: "Copyright (c) Coney contributors",
    information: "Licensed under the MIT License. A RabbitMQ-compatible broker.",
    platform: `Node.js ${process.version}`,
    product: PRODUCT,
    version: VERSION,
  };
}
