// Exchanges and bindings over HTTP: declare, read, delete, publish, bind; their error bodies.
import { del, get, post, put, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-xb";
const v = vhostFixture(V);
const x = (name: string, rest = "") => `/api/exchanges/${V}/${name}${rest}`;

export const scenarios: Scenario[] = [
  {
    name: "exchanges: declare, read, redeclare, delete",
    ...v,
    steps: [
      put(x("x1"), { type: "topic", durable: true, auto_delete: false, internal: false, arguments: {} }),
      put(x("x1"), { type: "topic", durable: true }),
      put(x("x1"), { type: "direct" }),
      put(x("x2"), {}),
      get(x("x1"), { exact: ["name", "vhost", "type", "durable", "auto_delete", "internal", "arguments"] }),
      get(x("amq.default"), { exact: ["name", "type"] }),
      get(`/api/exchanges/${V}`, { exact: ["*.name", "*.type"] }),
      put(x("x3"), { type: "nonsense" }),
      put(x("amq.custom"), { type: "direct" }),
      put(x("amq.default"), { type: "direct" }),
      del(x("amq.default")),
      put(x("amq.direct"), { type: "direct", durable: true }),
      del(x("x1")),
      del(x("x1")),
      get(x("x1")),
      get(`/api/exchanges/compat-no-such-vhost`),
      put(`/api/exchanges/compat-no-such-vhost/x`, { type: "direct" }),
    ],
  },
  {
    name: "bindings: create, list, delete, errors",
    ...v,
    steps: [
      put(x("bx"), { type: "direct" }),
      put(x("bx2"), { type: "fanout" }),
      put(`/api/queues/${V}/bq`, {}),
      post(`/api/bindings/${V}/e/bx/q/bq`, { routing_key: "rk", arguments: {} }),
      post(`/api/bindings/${V}/e/bx/q/bq`, {}),
      post(`/api/bindings/${V}/e/bx/e/bx2`, { routing_key: "to-x2" }),
      get(`/api/bindings/${V}/e/bx/q/bq`, { exact: ["*"] }),
      get(`/api/bindings/${V}/e/bx/q/bq/rk`, { exact: ["*"] }),
      get(`/api/bindings/${V}/e/bx/q/bq/~`, { exact: ["*"] }),
      get(`/api/bindings/${V}/e/bx/e/bx2`, { exact: ["*"] }),
      get(`/api/bindings/${V}`, { exact: ["*"] }),
      get(x("bx", "/bindings/source"), { exact: ["*"] }),
      get(x("bx2", "/bindings/destination"), { exact: ["*"] }),
      get(`/api/queues/${V}/bq/bindings`, { exact: ["*"] }),
      post(`/api/bindings/${V}/e/bx/q/no-such-queue`, { routing_key: "a" }),
      post(`/api/bindings/${V}/e/no-such-exchange/q/bq`, { routing_key: "a" }),
      post(`/api/bindings/${V}/e/bx/e/no-such-exchange`, { routing_key: "a" }),
      post(`/api/bindings/${V}/e/amq.default/q/bq`, { routing_key: "a" }),
      get(`/api/bindings/${V}/e/bx/q/bq/nonexistent`),
      del(`/api/bindings/${V}/e/bx/q/bq/rk`),
      del(`/api/bindings/${V}/e/bx/q/bq/rk`),
      del(`/api/bindings/${V}/e/bx/e/bx2/to-x2`),
      get(`/api/bindings/compat-no-such-vhost`),
    ],
  },
  {
    name: "publish routes and reports",
    ...v,
    steps: [
      put(x("px"), { type: "fanout" }),
      put(`/api/queues/${V}/pq`, {}),
      post(`/api/bindings/${V}/e/px/q/pq`, {}),
      post(x("px", "/publish"), { routing_key: "", payload: "hello", payload_encoding: "string", properties: { content_type: "text/plain", priority: 3 } }, { exact: ["routed"] }),
      post(`/api/queues/${V}/pq/get`, { count: "1", ackmode: "ack_requeue_false", encoding: "auto", truncate: "50000" }, { exact: ["*.payload", "*.properties", "*.exchange"] }),
      del(x("px"), {}),
    ],
  },
];
