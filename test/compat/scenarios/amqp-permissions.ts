// The spec's permission profiles over AMQP and HTTP, topic authorisation, and update-secret.
import { amqp, get, post, put, userFixture, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-perm";
const v = vhostFixture(V);
const producer = userFixture("compat-perm-producer", "management", V, ["^$", "^px$", "^$"]);
const consumer = userFixture("compat-perm-consumer", "management", V, ["^$", "^$", "^app.*"]);
const monitor = userFixture("compat-perm-monitor", "management", V, ["^$", "^$", ".*"]);
const app = userFixture("compat-perm-app", "management", V, ["^app_.*", "^app_.*", "^app_.*"]);
const topical = userFixture("compat-perm-topic", "management", V);
const all = [producer, consumer, monitor, app, topical];
const fixtures = {
  setup: [...v.setup, put(`/api/exchanges/${V}/px`, { type: "topic" }), put(`/api/queues/${V}/app.q`, {}), put(`/api/queues/${V}/app_q`, {}), ...all.flatMap((u) => u.setup)],
  cleanup: [...all.flatMap((u) => u.cleanup), ...v.cleanup],
};
const publishAs = (user: string, exchange: string, rk: string) =>
  post(`/api/exchanges/${V}/${exchange}/publish`, { routing_key: rk, payload: "m", payload_encoding: "string", properties: {} }, { as: `${user}:pw` });

export const scenarios: Scenario[] = [
  {
    name: "permission profiles over AMQP",
    ...fixtures,
    steps: [
      amqp({ op: "open" }, { as: "compat-perm-producer:pw", vhost: V, conn: "p" }),
      amqp({ op: "publish", exchange: "px", routingKey: "a", body: "m" }, { conn: "p" }),
      amqp({ op: "publish", exchange: "", routingKey: "app.q", body: "m" }, { conn: "p" }),
      amqp({ op: "declareQueue", queue: "prod-q" }, { conn: "p" }),
      amqp({ op: "get", queue: "app.q" }, { conn: "p" }),
      amqp({ op: "open" }, { as: "compat-perm-consumer:pw", vhost: V, conn: "c" }),
      amqp({ op: "get", queue: "app.q" }, { conn: "c" }),
      amqp({ op: "consume", queue: "app_q" }, { conn: "c" }),
      amqp({ op: "publish", exchange: "px", routingKey: "a", body: "m" }, { conn: "c" }),
      amqp({ op: "bindQueue", queue: "app.q", exchange: "px", routingKey: "a" }, { conn: "c" }),
      amqp({ op: "open" }, { as: "compat-perm-app:pw", vhost: V, conn: "a" }),
      amqp({ op: "declareQueue", queue: "app_new", options: { autoDelete: true } }, { conn: "a" }),
      amqp({ op: "declareQueue", queue: "other" }, { conn: "a" }),
      amqp({ op: "declareExchange", exchange: "app_x", type: "direct", options: { autoDelete: true } }, { conn: "a" }),
      amqp({ op: "bindQueue", queue: "app_q", exchange: "app_x", routingKey: "k" }, { conn: "a" }),
      amqp({ op: "purge", queue: "app.q" }, { conn: "a" }),
      amqp({ op: "open" }, { as: "compat-perm-producer:wrong", vhost: V, conn: "bad" }),
      amqp({ op: "open" }, { as: "compat-perm-producer:pw", vhost: "compat-no-such-vhost", conn: "bad2" }),
      amqp({ op: "open" }, { as: "compat-perm-producer:pw", vhost: "/", conn: "bad3" }),
    ],
  },
  {
    name: "permission profiles over HTTP",
    ...fixtures,
    steps: [
      publishAs("compat-perm-producer", "px", "a"),
      publishAs("compat-perm-producer", "amq.default", "app.q"),
      put(`/api/queues/${V}/prod-q`, {}, { as: "compat-perm-producer:pw" }),
      post(`/api/queues/${V}/app.q/get`, { count: 1, ackmode: "ack_requeue_true", encoding: "auto" }, { as: "compat-perm-consumer:pw" }),
      post(`/api/queues/${V}/app.q/get`, { count: 1, ackmode: "ack_requeue_true", encoding: "auto" }, { as: "compat-perm-producer:pw" }),
      get(`/api/queues/${V}`, { as: "compat-perm-monitor:pw", exact: ["*.name"] }),
      post(`/api/bindings/${V}/e/px/q/app.q`, { routing_key: "a" }, { as: "compat-perm-consumer:pw" }),
      put(`/api/queues/${V}/app_h`, { auto_delete: true }, { as: "compat-perm-app:pw" }),
      put(`/api/queues/${V}/other`, {}, { as: "compat-perm-app:pw" }),
      { http: ["DELETE", `/api/queues/${V}/app.q/contents`], as: "compat-perm-monitor:pw" },
    ],
  },
  {
    name: "topic authorisation on routing keys",
    ...fixtures,
    steps: [
      put(`/api/topic-permissions/${V}/compat-perm-topic`, { exchange: "px", write: "^allowed\\.", read: "^bind\\." }),
      amqp({ op: "open" }, { as: "compat-perm-topic:pw", vhost: V }),
      amqp({ op: "publish", exchange: "px", routingKey: "allowed.1", body: "m" }),
      amqp({ op: "publish", exchange: "px", routingKey: "refused.1", body: "m" }),
      amqp({ op: "publish", exchange: "", routingKey: "refused.1", body: "m" }),
      amqp({ op: "bindQueue", queue: "app.q", exchange: "px", routingKey: "bind.x" }),
      amqp({ op: "bindQueue", queue: "app.q", exchange: "px", routingKey: "other.x" }),
      amqp({ op: "declareExchange", exchange: "px-dest", type: "fanout", options: { autoDelete: true } }),
      amqp({ op: "bindExchange", destination: "px-dest", source: "px", routingKey: "other.y" }),
      publishAs("compat-perm-topic", "px", "allowed.2"),
      publishAs("compat-perm-topic", "px", "refused.2"),
      post(`/api/bindings/${V}/e/px/q/app.q`, { routing_key: "other.z" }, { as: "compat-perm-topic:pw" }),
    ],
  },
  {
    name: "update-secret on a password login changes nothing",
    ...fixtures,
    steps: [
      amqp({ op: "open" }, { as: "compat-perm-app:pw", vhost: V }),
      amqp({ op: "updateSecret", secret: "anything" }),
      amqp({ op: "declareQueue", queue: "app_after", options: { autoDelete: true } }),
      amqp({ op: "declareQueue", queue: "not_app" }),
    ],
  },
];
