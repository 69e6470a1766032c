// What a quorum queue and a stream do with the operations of a classic queue: RabbitMQ 3.10
// refuses a stream's purge and get and a quorum queue's delete with if-unused or if-empty
// (NOT_IMPLEMENTED over AMQP, 400 over HTTP), and deletes a stream whatever those flags say.
import { amqp, del, post, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-queue-type-ops";
const v = vhostFixture(V);

export const scenarios: Scenario[] = [
  {
    name: "quorum queue and stream operations over HTTP",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareQueue", queue: "qq", options: { durable: true, arguments: { "x-queue-type": "quorum" } } }),
      amqp({ op: "declareQueue", queue: "qs", options: { durable: true, arguments: { "x-queue-type": "stream" } } }),
      amqp({ op: "publish", exchange: "", routingKey: "qs", body: "m" }),
      del(`/api/queues/${V}/qs/contents`),
      post(`/api/queues/${V}/qs/get`, { count: 1, ackmode: "ack_requeue_true", encoding: "auto" }),
      del(`/api/queues/${V}/qq?if-unused=true`),
      del(`/api/queues/${V}/qq?if-empty=true`),
      del(`/api/queues/${V}/qs?if-empty=true`),
    ],
  },
  {
    name: "quorum queue and stream operations over AMQP",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareQueue", queue: "aq", options: { durable: true, arguments: { "x-queue-type": "quorum" } } }),
      amqp({ op: "declareQueue", queue: "as", options: { durable: true, arguments: { "x-queue-type": "stream" } } }),
      amqp({ op: "publish", exchange: "", routingKey: "as", body: "m" }),
      amqp({ op: "deleteQueue", queue: "as", options: { ifEmpty: true, ifUnused: true } }),
      amqp({ op: "open" }, { vhost: V, conn: "q" }),
      amqp({ op: "deleteQueue", queue: "aq", options: { ifEmpty: true } }, { conn: "q" }),
    ],
  },
];
