// Health checks and the aliveness test, including who may run it.
import { get, userFixture, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-health";
const v = vhostFixture(V);
const full = userFixture("compat-health-full", "management", V);
const narrow = userFixture("compat-health-narrow", "management", V, ["^x$", "^x$", "^x$"]);
const outsider = userFixture("compat-health-out", "management", null);

export const scenarios: Scenario[] = [
  {
    name: "health checks",
    steps: [
      get("/api/health/checks/alarms", { exact: ["*"] }),
      get("/api/health/checks/local-alarms", { exact: ["*"] }),
      get("/api/health/checks/virtual-hosts", { exact: ["*"] }),
      get("/api/health/checks/node-is-quorum-critical", { exact: ["*"] }),
      get("/api/health/checks/node-is-mirror-sync-critical", { exact: ["*"] }),
      get("/api/health/checks/certificate-expiration/1/weeks", { exact: ["*"] }),
      get("/api/health/checks/certificate-expiration/x/weeks"),
      get("/api/health/checks/certificate-expiration/1/fortnights"),
      get("/api/health/checks/port-listener/1", { exact: ["status", "reason", "missing"] }),
      get("/api/health/checks/port-listener/abc"),
      get("/api/health/checks/protocol-listener/amqp", { exact: ["*"] }),
      get("/api/health/checks/protocol-listener/amqp091", { exact: ["*"] }),
      get("/api/health/checks/protocol-listener/management", { exact: ["*"] }),
      get("/api/health/checks/protocol-listener/mqtt", { exact: ["status", "reason", "missing"] }),
      get("/api/healthchecks/node", { exact: ["*"] }),
    ],
  },
  {
    name: "aliveness test runs as the calling user",
    setup: [...v.setup, ...full.setup, ...narrow.setup, ...outsider.setup],
    cleanup: [...full.cleanup, ...narrow.cleanup, ...outsider.cleanup, ...v.cleanup],
    steps: [
      get(`/api/aliveness-test/${V}`, { exact: ["*"] }),
      get(`/api/aliveness-test/${V}`, { as: "compat-health-full:pw", exact: ["*"] }),
      get(`/api/aliveness-test/${V}`, { as: "compat-health-narrow:pw" }),
      get(`/api/aliveness-test/${V}`, { as: "compat-health-out:pw" }),
      get(`/api/aliveness-test/compat-no-such-vhost`),
    ],
  },
];
