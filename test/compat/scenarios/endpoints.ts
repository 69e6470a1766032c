// Every other endpoint of RabbitMQ 3.10's API reference (api/index.html), and plugin endpoints
// (/api/federation-links and /api/shovels recorded with rabbitmq_federation_management and
// rabbitmq_shovel_management enabled: [] without links or shovels).
import { amqp, del, get, post, put, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-ep";
const v = vhostFixture(V);
const hasItems = (s: number, b: unknown) => s === 200 && Array.isArray(b) && b.length > 0;

export const scenarios: Scenario[] = [
  {
    name: "overview, nodes, cluster name, extensions",
    steps: [
      get("/api/overview"),
      get("/api/nodes", { capture: { node: "0.name" } }),
      get("/api/nodes/{{node}}"),
      get("/api/nodes/rabbit@no-such-node"),
      get("/api/cluster-name"),
      get("/api/extensions", { items: "shape" }),
      get("/api/auth/attempts/{{node}}", { items: "shape" }),
      get("/api/auth/attempts/{{node}}/source", { items: "shape" }),
      get("/api/federation-links"),
      get("/api/shovels"),
      get("/api/no-such-endpoint"),
      post("/api/rebalance/queues"),
    ],
  },
  {
    name: "connections, channels, consumers",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareQueue", queue: "cq", options: { durable: false } }),
      amqp({ op: "consume", queue: "cq" }),
      get(`/api/vhosts/${V}/connections`, { until: hasItems, capture: { conn: "0.name" } }),
      get("/api/connections/{{conn}}"),
      get("/api/connections/{{conn}}/channels", { until: hasItems }),
      get(`/api/vhosts/${V}/channels`, { until: hasItems, capture: { channel: "0.name" } }),
      get("/api/channels/{{channel}}"),
      get(`/api/consumers/${V}`, { until: hasItems }),
      get("/api/connections/username/guest", { items: "shape" }),
      get("/api/connections/no-such-connection"),
      get("/api/channels/no-such-channel"),
      del("/api/connections/{{conn}}", { headers: { "x-reason": "compat test" } }),
      del("/api/connections/no-such-connection"),
    ],
  },
  {
    name: "queue actions and vhost start",
    ...v,
    steps: [
      put(`/api/queues/${V}/aq`, {}),
      get("/api/nodes", { capture: { node: "0.name" } }),
      post(`/api/vhosts/${V}/start/{{node}}`),
      post(`/api/vhosts/${V}/start/rabbit@no-such-node`),
      post(`/api/queues/${V}/aq/actions`, { action: "nonsense" }),
    ],
  },
  {
    name: "policies, operator policies, parameters, global parameters",
    ...v,
    steps: [
      put(`/api/policies/${V}/p1`, { pattern: "^p", definition: { "max-length": 10 }, priority: 2, "apply-to": "queues" }),
      put(`/api/policies/${V}/p1`, { pattern: "^p", definition: { "max-length": 11 } }),
      get(`/api/policies/${V}/p1`, { exact: ["*"] }),
      get(`/api/policies/${V}`, { exact: ["*"] }),
      put(`/api/policies/${V}/p2`, { pattern: "^p", definition: { "max-length": 10 }, "apply-to": "sideways" }),
      put(`/api/policies/${V}/p3`, { pattern: "^p", definition: { "max-length": "ten" } }),
      put(`/api/policies/${V}/p4`, { pattern: "^p", definition: { "no-such-key": 1 } }),
      put(`/api/policies/${V}/p5`, { definition: { "max-length": 1 } }),
      put(`/api/policies/${V}/p6`, { pattern: "^p", definition: { "max-length": 1 }, priority: "high" }),
      del(`/api/policies/${V}/p1`),
      del(`/api/policies/${V}/p1`),
      get(`/api/policies/${V}/p1`),
      put(`/api/operator-policies/${V}/op1`, { pattern: "^p", definition: { "max-length": 10 }, "apply-to": "queues" }),
      get(`/api/operator-policies/${V}/op1`, { exact: ["*"] }),
      get(`/api/operator-policies/${V}`, { exact: ["*"] }),
      put(`/api/operator-policies/${V}/op2`, { pattern: "^p", definition: { "dead-letter-exchange": "x" } }),
      del(`/api/operator-policies/${V}/op1`),
      put(`/api/parameters/no-such-component/${V}/n1`, { value: {} }),
      get(`/api/parameters/no-such-component`),
      get(`/api/parameters/no-such-component/${V}`),
      put("/api/global-parameters/compat-ep-g", { value: { a: 1 } }),
      get("/api/global-parameters/compat-ep-g", { exact: ["*"] }),
      put("/api/global-parameters/compat-ep-g", {}),
      del("/api/global-parameters/compat-ep-g"),
      get("/api/global-parameters/compat-ep-g"),
    ],
  },
];
