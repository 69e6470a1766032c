// A queue's management record for each queue type, as RabbitMQ 3.10 fills it once its
// statistics are out: the quorum-only fields (single_active_consumer_ctag, messages_dlx,
// open_files) and a stream's. (RabbitMQ shows no message_stats here: the steps' channels close
// before they emit their statistics.)
import { amqp, get, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-queue-type-records";
const v = vhostFixture(V);
/** Once RabbitMQ's statistics show the queue's one message and the fields named. */
const shows = (...keys: string[]) => (_status: number, body: unknown): boolean =>
  typeof body === "object" && body !== null && (body as { messages?: unknown }).messages === 1 && keys.every((k) => k in body);

export const scenarios: Scenario[] = [
  {
    name: "records of a classic queue, a quorum queue and a stream",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareQueue", queue: "qc", options: { durable: true } }),
      amqp({ op: "declareQueue", queue: "qq", options: { durable: true, arguments: { "x-queue-type": "quorum" } } }),
      amqp({ op: "declareQueue", queue: "qs", options: { durable: true, arguments: { "x-queue-type": "stream" } } }),
      ...["qc", "qq", "qs"].map((queue) => amqp({ op: "publish", exchange: "", routingKey: queue, body: "m" })),
      get(`/api/queues/${V}/qc`, { until: shows("memory"), exact: ["messages", "type"] }),
      get(`/api/queues/${V}/qq`, { until: shows("open_files"), exact: ["messages", "type", "messages_dlx", "message_bytes_dlx", "single_active_consumer_ctag"] }),
      get(`/api/queues/${V}/qs`, { until: shows("readers"), exact: ["type"] }),
    ],
  },
];
