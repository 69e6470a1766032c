// Queues over HTTP: declare, read, delete, purge, get; their error bodies and argument texts.
import { amqp, del, get, post, put, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-queues";
const v = vhostFixture(V);
const q = (name: string, rest = "") => `/api/queues/${V}/${name}${rest}`;
const publish = (rk: string, payload: string) => post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: rk, payload, payload_encoding: "string", properties: {} });

export const scenarios: Scenario[] = [
  {
    name: "declare, read, redeclare, delete",
    ...v,
    steps: [
      put(q("q1"), { durable: true, auto_delete: false, arguments: {} }),
      put(q("q1"), { durable: true }),
      put(q("q1"), { durable: false }),
      get(q("q1"), { exact: ["name", "vhost", "durable", "auto_delete", "exclusive", "arguments", "messages"], until: (s, b) => s === 200 && typeof (b as { messages?: unknown }).messages === "number" }),
      get(`/api/queues/${V}`, { exact: ["*.name"] }),
      get(q("q1", "/bindings"), { exact: ["*"] }),
      del(q("q1")),
      del(q("q1")),
      get(q("q1")),
      get(`/api/queues/compat-no-such-vhost`),
      put(`/api/queues/compat-no-such-vhost/q`, {}),
    ],
  },
  {
    name: "argument errors use RabbitMQ's texts",
    ...v,
    steps: [
      put(q("qa"), { arguments: { "x-max-length": "ten" } }),
      put(q("qb"), { arguments: { "x-queue-type": "nonsense" } }),
      put(q("qc"), { arguments: { "x-message-ttl": -1 } }),
      put(q("qd"), { durable: "troo" }),
      put(q("qe"), { arguments: { "x-overflow": "sideways" } }),
      put(q("qf"), { arguments: { "x-max-priority": 300 } }),
      put(q("qg"), { arguments: { "x-expires": 0 } }),
      put(q("amq.q"), {}),
      put(q("qh"), "just a string"),
      { http: ["PUT", q("qi")], raw: "{bad json" },
      get(`/api/queues/${V}`),
    ],
  },
  {
    name: "get: message_count is what is left after each message",
    ...v,
    steps: [
      put(q("qg"), {}),
      publish("qg", "one"),
      publish("qg", "two"),
      publish("qg", "three"),
      post(q("qg", "/get"), { count: 2, ackmode: "ack_requeue_false", encoding: "auto" }, { exact: ["*.message_count", "*.payload", "*.payload_encoding", "*.redelivered", "*.exchange", "*.routing_key", "*.properties"] }),
      post(q("qg", "/get"), { count: 5, ackmode: "ack_requeue_true", encoding: "auto", truncate: 2 }, { exact: ["*.message_count", "*.payload", "*.payload_bytes"] }),
      post(q("qg", "/get"), { count: 1, ackmode: "reject_requeue_false", encoding: "base64" }, { exact: ["*.message_count", "*.payload", "*.payload_encoding", "*.redelivered"] }),
      post(q("qg", "/get"), { count: 1, ackmode: "ack_requeue_false", encoding: "auto" }, { exact: ["*"] }),
    ],
  },
  {
    name: "get and publish validation",
    ...v,
    steps: [
      put(q("qv"), {}),
      post(q("qv", "/get"), { count: 1, encoding: "auto" }),
      post(q("qv", "/get"), { count: 1, ackmode: "nonsense", encoding: "auto" }),
      post(q("qv", "/get"), { count: 1, ackmode: "ack_requeue_false", encoding: "nonsense" }),
      post(q("qv", "/get"), { ackmode: "ack_requeue_false", encoding: "auto" }),
      post(q("qv", "/get"), { count: 1, ackmode: "ack_requeue_false" }),
      post(q("no-such-queue", "/get"), { count: 1, ackmode: "ack_requeue_false", encoding: "auto" }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "qv", payload: "%%%not base64", payload_encoding: "base64", properties: {} }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "qv", payload: "x", payload_encoding: "string" }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "qv", payload: "x", payload_encoding: "utf16", properties: {} }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "qv", payload_encoding: "string", properties: {} }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "qv", payload: "x", properties: {} }),
      post(`/api/exchanges/${V}/no-such-exchange/publish`, { routing_key: "qv", payload: "x", payload_encoding: "string", properties: {} }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "qv", payload: "aGk=", payload_encoding: "base64", properties: { delivery_mode: 2, headers: { a: 1 } } }, { exact: ["routed"] }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "nowhere", payload: "x", payload_encoding: "string", properties: {} }, { exact: ["routed"] }),
      post(q("qv", "/get"), { count: 1, ackmode: "ack_requeue_false", encoding: "auto" }, { exact: ["*.payload", "*.properties", "*.message_count"] }),
    ],
  },
  {
    name: "purge, delete if-empty and if-unused",
    ...v,
    steps: [
      put(q("qp"), {}),
      publish("qp", "m"),
      { http: ["DELETE", `${q("qp")}?if-empty=true`] },
      del(q("qp", "/contents")),
      del(q("no-such", "/contents")),
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "consume", queue: "qp" }),
      { http: ["DELETE", `${q("qp")}?if-unused=true`] },
      amqp({ op: "close" }),
      { http: ["DELETE", `${q("qp")}?if-empty=true`] },
    ],
  },
  {
    name: "unsupported methods are 405 with Allow",
    ...v,
    steps: [{ http: ["POST", q("q405")] }, { http: ["PUT", `/api/queues`] }, { http: ["PATCH", `/api/overview`] }],
  },
];
