// A real Prometheus scrapes Coney: started on loopback with a 1 s scrape of Coney's ephemeral
// metrics port, then asked over its HTTP API for what it scraped, including the RabbitMQ-Overview
// dashboard's join on rabbitmq_identity_info.
import { after, before, describe, it } from "node:test";
import amqp from "amqplib";
import { startMetricsBroker, type MetricsBroker } from "./metrics-fixture.js";
import { RunningPrometheus } from "./prometheus-tools.js";

describe("a real Prometheus scraping Coney", () => {
  let b: MetricsBroker;
  const prometheus = new RunningPrometheus();
  const untilValue = (promql: string, want: string): Promise<void> => prometheus.untilValue(promql, want);

  before(async () => {
    b = await startMetricsBroker();
    await prometheus.start([`127.0.0.1:${b.prometheusPort}`]);
  });

  after(async () => {
    await prometheus.close();
    await b?.close();
  });

  it("stores rabbitmq_queue_messages_ready as Coney reports it, and the dashboard's join works", async () => {
    const conn = await amqp.connect(b.amqpUrl);
    try {
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("scraped", { durable: false });
      for (let i = 0; i < 3; i++) ch.sendToQueue("scraped", Buffer.from(`m${i}`));
      await ch.waitForConfirms();
      await untilValue('up{job="coney"}', "1");
      await untilValue("rabbitmq_queue_messages_ready", "3");
      // As RabbitMQ-Overview queries it (namespace is empty outside Kubernetes, as for RabbitMQ).
      const cluster = b.config.clusterName;
      await untilValue(
        `sum(rabbitmq_queue_messages_ready * on(instance, job) group_left(rabbitmq_cluster) rabbitmq_identity_info{rabbitmq_cluster="${cluster}", namespace="", rabbitmq_endpoint="aggregated"})`,
        "3",
      );
      await untilValue(`rabbitmq_global_messages_received_total{protocol="amqp091"}`, "3");
    } finally {
      await conn.close();
    }
  });
});
