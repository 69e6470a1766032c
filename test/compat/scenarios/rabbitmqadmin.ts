// The requests rabbitmqadmin 3.10 (Debian's /usr/bin/rabbitmqadmin) sends, byte for byte in
// meaning: numbers and booleans as strings, `vhost`/`name` echoed in bodies, columns queries.
// The test must not need rabbitmqadmin itself, so its requests are written out here.
import { del, get, post, put, type Scenario } from "../scenario.js";

const V = "compat-admin";

export const scenarios: Scenario[] = [
  {
    name: "rabbitmqadmin declare, publish, get, list, delete",
    cleanup: [del(`/api/vhosts/${V}`), del("/api/users/compat-admin-u")],
    steps: [
      put(`/api/vhosts/${V}`, { name: V }),
      put(`/api/users/compat-admin-u`, { name: "compat-admin-u", password: "pw", tags: "management" }),
      put(`/api/permissions/${V}/compat-admin-u`, { vhost: V, user: "compat-admin-u", configure: ".*", write: ".*", read: ".*" }),
      put(`/api/exchanges/${V}/ax`, { name: "ax", type: "topic", auto_delete: "false", durable: "true", internal: "false", arguments: {}, vhost: V }),
      put(`/api/queues/${V}/aq`, { name: "aq", auto_delete: "false", durable: "true", arguments: {}, vhost: V }),
      put(`/api/queues/${V}/aqq`, { name: "aqq", auto_delete: "false", durable: "true", arguments: { "x-queue-type": "quorum" }, vhost: V, queue_type: "quorum" }),
      post(`/api/bindings/${V}/e/ax/q/aq`, { source: "ax", destination: "aq", destination_type: "queue", routing_key: "k.#", arguments: {}, vhost: V }),
      put(`/api/policies/${V}/ap`, { name: "ap", pattern: "^aq$", definition: { "max-length": 10 }, priority: 0, vhost: V }),
      put(`/api/vhost-limits/${V}/max-queues`, { vhost: V, name: "max-queues", value: 100 }),
      post(`/api/exchanges/${V}/ax/publish`, { routing_key: "k.1", payload: "hello", properties: {}, exchange: "ax", payload_encoding: "string", vhost: V }, { exact: ["routed"] }),
      post(`/api/exchanges/${V}/amq.default/publish`, { routing_key: "aq", payload: "aGk=", properties: {}, exchange: "amq.default", payload_encoding: "base64", vhost: V }, { exact: ["routed"] }),
      post(`/api/queues/${V}/aq/get`, { count: "1", ackmode: "ack_requeue_true", encoding: "auto", queue: "aq", vhost: V }, { exact: ["*.payload", "*.message_count", "*.routing_key"] }),
      post(`/api/queues/${V}/aq/get`, { count: "5", ackmode: "ack_requeue_false", encoding: "auto", truncate: "3", queue: "aq", vhost: V }, { exact: ["*.payload", "*.message_count"] }),
      post(`/api/queues/${V}/aq/get`, { count: "zero", ackmode: "ack_requeue_false", encoding: "auto", queue: "aq", vhost: V }),
      get(`/api/queues/${V}?columns=name,messages`, { exact: ["*.name"] }),
      get(`/api/exchanges/${V}?columns=name,type`, { exact: ["*"] }),
      get(`/api/bindings/${V}?columns=source,destination,routing_key`, { exact: ["*"] }),
      get("/api/vhosts?columns=name,messages", { items: "shape" }),
      get("/api/overview?columns=rabbitmq_version,cluster_name,queue_totals.messages,object_totals.queues"),
      get("/api/nodes?columns=name,type,mem_used"),
      get(`/api/policies/${V}`, { exact: ["*.name", "*.definition"] }),
      get("/api/vhost-limits", { items: "shape" }),
      del(`/api/queues/${V}/aq/contents`),
      del(`/api/bindings/${V}/e/ax/q/aq/k.%23`),
      del(`/api/vhost-limits/${V}/max-queues`),
      del(`/api/policies/${V}/ap`),
      del(`/api/queues/${V}/aqq`),
      del(`/api/queues/${V}/aq`),
      del(`/api/exchanges/${V}/ax`),
      del(`/api/permissions/${V}/compat-admin-u`),
    ],
  },
];
