// Authentication and the tag matrix: 401 forms, whoami, what each management tag may reach.
import { get, put, userFixture, type Scenario } from "../scenario.js";

const mgmt = userFixture("compat-auth-mgmt", "management", "/");
const monitor = userFixture("compat-auth-monitor", "monitoring", "/");
const policy = userFixture("compat-auth-policy", "policymaker", "/");
const none = userFixture("compat-auth-none", "", "/");

export const scenarios: Scenario[] = [
  {
    name: "failed logins are 401 with RabbitMQ's challenge and body",
    steps: [
      get("/api/overview", { as: null }),
      get("/api/overview", { as: "guest:wrong" }),
      get("/api/overview", { as: "nobody-at-all:pw" }),
      get("/api/whoami", { as: "guest:" }),
      get("/api/vhosts", { headers: { authorization: "Basic !!!" }, as: null }),
    ],
  },
  {
    name: "whoami",
    ...mgmt,
    steps: [get("/api/whoami", { exact: ["name", "tags"] }), get("/api/whoami", { as: "compat-auth-mgmt:pw", exact: ["name", "tags"] })],
  },
  {
    name: "the tag matrix",
    setup: [...mgmt.setup, ...monitor.setup, ...policy.setup, ...none.setup],
    cleanup: [...mgmt.cleanup, ...monitor.cleanup, ...policy.cleanup, ...none.cleanup],
    steps: [
      get("/api/overview", { as: "compat-auth-none:pw" }),
      get("/api/users", { as: "compat-auth-mgmt:pw" }),
      get("/api/nodes", { as: "compat-auth-mgmt:pw" }),
      get("/api/nodes", { as: "compat-auth-monitor:pw", items: "shape" }),
      get("/api/vhosts/%2F", { as: "compat-auth-mgmt:pw" }),
      get("/api/permissions", { as: "compat-auth-policy:pw" }),
      put("/api/policies/%2F/compat-auth-p", { pattern: "^compat-auth-nothing$", definition: { "max-length": 1 } }, { as: "compat-auth-mgmt:pw" }),
      put("/api/vhosts/compat-auth-v", {}, { as: "compat-auth-policy:pw" }),
      get("/api/definitions", { as: "compat-auth-monitor:pw" }),
    ],
  },
];
