// AMQP refusals: reply codes and texts of reserved names, missing objects, inequivalent
// redeclares, the default exchange, exclusive queues (also seen over HTTP).
import { amqp, del, get, put, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-amqp-errors";
const v = vhostFixture(V);

export const scenarios: Scenario[] = [
  {
    name: "channel errors",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareExchange", exchange: "amq.custom", type: "direct" }),
      amqp({ op: "declareQueue", queue: "amq.q" }),
      amqp({ op: "checkQueue", queue: "missing" }),
      amqp({ op: "declareQueue", queue: "dq", options: { durable: true } }),
      amqp({ op: "declareQueue", queue: "dq", options: { durable: false } }),
      amqp({ op: "declareQueue", queue: "args", options: { arguments: { "x-max-length": "ten" } } }),
      amqp({ op: "declareQueue", queue: "args", options: { arguments: { "x-queue-type": "nonsense" } } }),
      amqp({ op: "declareQueue", queue: "args", options: { arguments: { "x-overflow": "sideways" } } }),
      amqp({ op: "bindQueue", queue: "dq", exchange: "missing-x", routingKey: "k" }),
      amqp({ op: "bindQueue", queue: "missing-q", exchange: "amq.direct", routingKey: "k" }),
      amqp({ op: "bindQueue", queue: "dq", exchange: "", routingKey: "k" }),
      amqp({ op: "publish", exchange: "missing-x", routingKey: "k", body: "m" }),
      amqp({ op: "deleteQueue", queue: "dq" }),
    ],
  },
  {
    name: "exclusive queues of another connection",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V, conn: "owner" }),
      amqp({ op: "declareQueue", queue: "mine", options: { exclusive: true } }, { conn: "owner" }),
      amqp({ op: "open" }, { vhost: V, conn: "other" }),
      amqp({ op: "consume", queue: "mine" }, { conn: "other" }),
      amqp({ op: "declareQueue", queue: "mine", options: { exclusive: true } }, { conn: "other" }),
      del(`/api/queues/${V}/mine`),
      del(`/api/queues/${V}/mine/contents`),
      get(`/api/queues/${V}/mine`, { exact: ["name", "exclusive"] }),
      put(`/api/queues/${V}/mine`, {}),
    ],
  },
  {
    name: "connection errors",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareExchange", exchange: "bad-type", type: "nonsense" }),
      amqp({ op: "open" }, { vhost: V, conn: "again" }),
      amqp({ op: "declareExchange", exchange: "ok-x", type: "fanout", options: { autoDelete: true } }, { conn: "again" }),
    ],
  },
];
