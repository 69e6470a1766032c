// Definitions import and export: RabbitMQ's password hashes log in; bad imports are 400.
import { del, get, post, put, type Scenario } from "../scenario.js";

const V = "compat-defs";
const users = [
  { name: "compat-defs-sha256", password_hash: "kI3GCqG+cq65rBQ9tiUUCREygKhmilKrZEWKSz+H0FJ1fk4/", hashing_algorithm: "rabbit_password_hashing_sha256", tags: ["management"], limits: {} },
  { name: "compat-defs-sha512", password_hash: "kI3GCsQumTxCJVLTejkIVfRZuZl3yfDkqms0Jb0+jaFpFJlTEHTb/NPoMa7RZHea1PGLSu+kWnrWrtxxy0HSg2V/daY=", hashing_algorithm: "rabbit_password_hashing_sha512", tags: "management" },
  { name: "compat-defs-md5", password_hash: "kI3GCjp/4GmDJUepnA1+aCzaba4=", hashing_algorithm: "rabbit_password_hashing_md5", tags: ["management"] },
];

export const scenarios: Scenario[] = [
  {
    name: "import RabbitMQ users and objects, export them",
    cleanup: [...users.map((u) => del(`/api/users/${u.name}`)), del(`/api/vhosts/${V}`)],
    steps: [
      post("/api/definitions", {
        users,
        vhosts: [{ name: V }],
        permissions: [{ user: "compat-defs-sha256", vhost: V, configure: ".*", write: ".*", read: ".*" }],
        topic_permissions: [{ user: "compat-defs-sha256", vhost: V, exchange: "amq.topic", write: "^w", read: "^r" }],
        queues: [{ name: "dq", vhost: V, durable: true, auto_delete: false, arguments: { "x-max-length": 5 } }],
        exchanges: [{ name: "dx", vhost: V, type: "topic", durable: true, auto_delete: false, internal: false, arguments: {} }],
        bindings: [{ source: "dx", vhost: V, destination: "dq", destination_type: "queue", routing_key: "k", arguments: {} }],
        policies: [{ vhost: V, name: "dp", pattern: "^dq$", "apply-to": "queues", definition: { "max-length": 3 }, priority: 1 }],
        parameters: [],
        global_parameters: [],
      }),
      get("/api/whoami", { as: "compat-defs-sha256:secret", exact: ["name", "tags"] }),
      get("/api/whoami", { as: "compat-defs-sha512:secret", exact: ["name", "tags"] }),
      get("/api/whoami", { as: "compat-defs-md5:secret", exact: ["name", "tags"] }),
      get("/api/whoami", { as: "compat-defs-md5:wrong" }),
      get(`/api/definitions/${V}`, { exact: ["queues.*.name", "queues.*.arguments", "exchanges", "bindings", "policies"] }),
      get(`/api/topic-permissions/${V}/compat-defs-sha256`, { exact: ["*"] }),
      get("/api/definitions", { items: "shape" }),
    ],
  },
  {
    name: "bad imports are 400",
    cleanup: [del("/api/users/compat-defs-notags"), del(`/api/vhosts/${V}-x`)],
    steps: [
      post("/api/definitions", { users: [{ name: "compat-defs-notags", password_hash: "", hashing_algorithm: "rabbit_password_hashing_sha256" }] }),
      get("/api/users/compat-defs-notags"),
      post("/api/definitions", { queues: [{ name: "q", vhost: "compat-no-such-vhost", durable: true, auto_delete: false, arguments: {} }] }),
      post("/api/definitions", { permissions: [{ user: "guest", vhost: "compat-no-such-vhost", configure: ".*", write: ".*", read: ".*" }] }),
      { http: ["POST", "/api/definitions"], raw: "{not json" },
      post(`/api/definitions/compat-no-such-vhost`, { queues: [] }),
      get(`/api/definitions/compat-no-such-vhost`),
    ],
  },
  {
    name: "single-vhost import",
    setup: [put(`/api/vhosts/${V}-s`, {})],
    cleanup: [del(`/api/vhosts/${V}-s`)],
    steps: [
      post(`/api/definitions/${V}-s`, { queues: [{ name: "sq", durable: true, auto_delete: false, arguments: {} }], exchanges: [], bindings: [], policies: [], parameters: [] }),
      get(`/api/queues/${V}-s/sq`, { exact: ["name", "vhost"] }),
      get(`/api/definitions/${V}-s`, { exact: ["queues.*.name"] }),
    ],
  },
];
