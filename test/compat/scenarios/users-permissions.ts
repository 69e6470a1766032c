// Users, permissions and topic permissions: CRUD, bulk delete, users without permissions, errors.
import { del, get, post, put, userFixture, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-up";
const v = vhostFixture(V);
const a = userFixture("compat-up-a", "management", V);
const b = userFixture("compat-up-b", "monitoring", null);

export const scenarios: Scenario[] = [
  {
    name: "users: create, read, update, delete, errors",
    steps: [
      put("/api/users/compat-up-u", { password: "pw", tags: "management,policymaker" }),
      put("/api/users/compat-up-u", { password: "pw2", tags: ["monitoring"] }),
      get("/api/users/compat-up-u", { exact: ["name", "tags", "hashing_algorithm", "limits"] }),
      put("/api/users/compat-up-u", { password: "pw" }),
      put("/api/users/compat-up-u", { password: "pw", password_hash: "abc", tags: "" }),
      put("/api/users/compat-up-h", { password_hash: "not base64!!", tags: "" }),
      put("/api/users/compat-up-h", { password_hash: "kI3GCqW5JLMJa4iX1lo7X4D6XbYqlLgxIs30+P6tENUV2POR", hashing_algorithm: "rabbit_password_hashing_sha256", tags: "management" }),
      get("/api/whoami", { as: "compat-up-h:test12", exact: ["name", "tags"] }),
      get("/api/users", { items: "shape" }),
      del("/api/users/compat-up-u"),
      del("/api/users/compat-up-h"),
      del("/api/users/compat-up-u"),
      get("/api/users/compat-up-u"),
    ],
  },
  {
    name: "users without permissions and bulk delete",
    setup: [...v.setup, ...a.setup, ...b.setup],
    cleanup: [...a.cleanup, ...b.cleanup, ...v.cleanup],
    steps: [
      get("/api/users/without-permissions", { exact: ["*.name", "*.tags"], items: "identity" }),
      post("/api/users/bulk-delete", { users: ["compat-up-b", "compat-up-nobody"] }),
      get("/api/users/compat-up-b"),
      post("/api/users/bulk-delete", {}),
      post("/api/users/bulk-delete", { users: "compat-up-a" }),
    ],
  },
  {
    name: "permissions: set, read, clear, errors",
    setup: [...v.setup, ...a.setup],
    cleanup: [...a.cleanup, ...v.cleanup],
    steps: [
      get(`/api/permissions/${V}/compat-up-a`, { exact: ["*"] }),
      put(`/api/permissions/${V}/compat-up-a`, { configure: "^a", write: "^b", read: "^c" }),
      get(`/api/permissions/${V}/compat-up-a`, { exact: ["*"] }),
      get(`/api/vhosts/${V}/permissions`, { exact: ["*"] }),
      get(`/api/users/compat-up-a/permissions`, { exact: ["*"] }),
      put(`/api/permissions/${V}/compat-up-a`, { configure: "^a", write: "^b" }),
      put(`/api/permissions/${V}/compat-up-nobody`, { configure: ".*", write: ".*", read: ".*" }),
      put(`/api/permissions/compat-no-such-vhost/compat-up-a`, { configure: ".*", write: ".*", read: ".*" }),
      get(`/api/permissions/compat-no-such-vhost/compat-up-a`),
      del(`/api/permissions/${V}/compat-up-a`),
      del(`/api/permissions/${V}/compat-up-a`),
      get(`/api/permissions/${V}/compat-up-a`),
    ],
  },
  {
    name: "topic permissions: set, read, clear, errors",
    setup: [...v.setup, ...a.setup],
    cleanup: [...a.cleanup, ...v.cleanup],
    steps: [
      put(`/api/topic-permissions/${V}/compat-up-a`, { exchange: "amq.topic", write: "^w", read: "^r" }),
      put(`/api/topic-permissions/${V}/compat-up-a`, { exchange: "other", write: ".*", read: ".*" }),
      put(`/api/topic-permissions/${V}/compat-up-a`, { exchange: "amq.topic", write: "^w2", read: "^r2" }),
      get(`/api/topic-permissions/${V}/compat-up-a`, { exact: ["*"], anyOrder: true }),
      get(`/api/topic-permissions`, { exact: ["*"], items: "identity" }),
      get(`/api/vhosts/${V}/topic-permissions`, { exact: ["*"] }),
      get(`/api/users/compat-up-a/topic-permissions`, { exact: ["*"] }),
      put(`/api/topic-permissions/${V}/compat-up-a`, { write: ".*", read: ".*" }),
      put(`/api/topic-permissions/${V}/compat-up-a`, { exchange: "amq.topic", write: ".*" }),
      put(`/api/topic-permissions/${V}/compat-up-nobody`, { exchange: "amq.topic", write: ".*", read: ".*" }),
      put(`/api/topic-permissions/compat-no-such-vhost/compat-up-a`, { exchange: "amq.topic", write: ".*", read: ".*" }),
      get(`/api/topic-permissions/compat-no-such-vhost/compat-up-a`),
      get(`/api/topic-permissions/${V}/compat-up-nobody`),
      get(`/api/users/compat-up-nobody/topic-permissions`),
      get(`/api/vhosts/compat-no-such-vhost/topic-permissions`),
      del(`/api/topic-permissions/${V}/compat-up-a/other`),
      get(`/api/topic-permissions/${V}/compat-up-a`, { exact: ["*"] }),
      del(`/api/topic-permissions/${V}/compat-up-a`),
      del(`/api/topic-permissions/${V}/compat-up-a`),
      get(`/api/topic-permissions/${V}/compat-up-a`),
    ],
  },
  {
    name: "user limits",
    setup: [...userFixture("compat-up-a", "management", null).setup],
    cleanup: [...a.cleanup],
    steps: [
      put("/api/user-limits/compat-up-a/max-connections", { value: 5 }),
      put("/api/user-limits/compat-up-a/max-channels", { value: "7" }),
      get("/api/user-limits/compat-up-a", { exact: ["*"] }),
      get("/api/user-limits", { exact: ["*"], items: "identity" }),
      put("/api/user-limits/compat-up-a/max-bananas", { value: 1 }),
      put("/api/user-limits/compat-up-a/max-connections", {}),
      put("/api/user-limits/compat-up-nobody/max-connections", { value: 1 }),
      del("/api/user-limits/compat-up-a/max-connections"),
      get("/api/user-limits/compat-up-a", { exact: ["*"] }),
      del("/api/user-limits/compat-up-a/max-channels"),
    ],
  },
];
