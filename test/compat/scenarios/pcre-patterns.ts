// Patterns only a backtracking engine runs — look-ahead, look-behind, backreferences — as
// RabbitMQ 3.10 takes them from PCRE: set over HTTP, imported in a definitions document as a
// RabbitMQ export holds them, and enforced over AMQP (permissions, topic permissions, policies).
import { amqp, get, post, put, userFixture, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-pcre";
const v = vhostFixture(V);
const U = "compat-pcre-user";
const user = userFixture(U, "management", V, ["^(?!secret-).*", "^(?!secret-).*", "^(?!secret-).*"]);
const fixtures = {
  setup: [...v.setup, ...user.setup, put(`/api/exchanges/${V}/tx`, { type: "topic" }), put(`/api/queues/${V}/secret-q`, {})],
  cleanup: [...user.cleanup, ...v.cleanup],
};

/** What a definitions export from RabbitMQ holds for such patterns (keys as RabbitMQ writes them). */
const definitions = {
  permissions: [{ user: U, vhost: V, configure: "^(?!amq\\.)(?!secret-).*", write: "^(?<!x)(?!secret-).*", read: "^(\\w+)-\\1$|^(?!secret-).*" }],
  topic_permissions: [{ user: U, vhost: V, exchange: "tx", write: "^(?!forbidden\\.).*", read: ".*" }],
  policies: [{ vhost: V, name: "cap-all-but-skip", pattern: "^(?!skip-)", "apply-to": "queues", definition: { "max-length": 1 }, priority: 0 }],
};

export const scenarios: Scenario[] = [
  {
    name: "look-ahead permission patterns set over HTTP and enforced over AMQP",
    ...fixtures,
    steps: [
      get(`/api/permissions/${V}/${U}`, { exact: ["configure", "write", "read"] }),
      amqp({ op: "open" }, { as: `${U}:pw`, vhost: V }),
      amqp({ op: "declareQueue", queue: "public-q", options: { autoDelete: true } }),
      amqp({ op: "declareQueue", queue: "secret-x", options: { autoDelete: true } }),
      amqp({ op: "get", queue: "secret-q" }),
      amqp({ op: "publish", exchange: "", routingKey: "secret-q", body: "m" }),
    ],
  },
  {
    name: "definitions with look-around patterns import and enforce",
    ...fixtures,
    steps: [
      post("/api/definitions", definitions),
      get(`/api/permissions/${V}/${U}`, { exact: ["configure", "write", "read"] }),
      get(`/api/topic-permissions/${V}/${U}`, { exact: ["*.exchange", "*.write", "*.read"] }),
      get(`/api/policies/${V}/cap-all-but-skip`, { exact: ["pattern", "definition"] }),
      amqp({ op: "open" }, { as: `${U}:pw`, vhost: V }),
      amqp({ op: "publish", exchange: "tx", routingKey: "allowed.1", body: "m" }),
      amqp({ op: "publish", exchange: "tx", routingKey: "forbidden.1", body: "m" }),
      amqp({ op: "open" }, { as: `${U}:pw`, vhost: V, conn: "d" }),
      amqp({ op: "declareQueue", queue: "capped-q", options: { autoDelete: true } }, { conn: "d" }),
      amqp({ op: "declareQueue", queue: "skip-q", options: { autoDelete: true } }, { conn: "d" }),
      get(`/api/queues/${V}/capped-q`, { exact: ["policy"], until: (_s, b) => (b as { policy?: unknown }).policy === "cap-all-but-skip" }),
      get(`/api/queues/${V}/skip-q`, { exact: ["policy"] }),
      amqp({ op: "declareQueue", queue: "secret-y", options: { autoDelete: true } }, { conn: "d" }),
    ],
  },
  {
    name: "patterns PCRE refuses are refused",
    ...fixtures,
    steps: [put(`/api/permissions/${V}/${U}`, { configure: "(?<!a+)b", write: ".*", read: ".*" }), put(`/api/policies/${V}/bad`, { pattern: "(unclosed", definition: { "max-length": 1 } })],
  },
];
