// Which policy governs a queue of each type: RabbitMQ 3.10 leaves out a policy whose definition
// holds a key the queue's type has no use for (delivery-limit on a classic queue, max-length on a
// stream) and takes the highest-priority policy of those left.
import { amqp, get, put, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-policy-queue-types";
const v = vhostFixture(V);
/** RabbitMQ shows a quorum queue's or a stream's policy after its first statistics emission. */
const shown = (_status: number, body: unknown): boolean => Array.isArray(body) && body.length === 3 && body.every((q: unknown) => typeof q === "object" && q !== null && "effective_policy_definition" in q);

export const scenarios: Scenario[] = [
  {
    name: "a policy with a key foreign to the type does not apply",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      ...["classic", "quorum", "stream"].map((type) => amqp({ op: "declareQueue", queue: `pq-${type}`, options: { durable: true, arguments: { "x-queue-type": type } } })),
      put(`/api/policies/${V}/mixed`, { pattern: "^pq-", "apply-to": "queues", priority: 2, definition: { "max-length": 5, "delivery-limit": 3 } }),
      put(`/api/policies/${V}/for-streams`, { pattern: "^pq-", "apply-to": "queues", priority: 1, definition: { "max-age": "1D" } }),
      put(`/api/policies/${V}/plain`, { pattern: "^pq-", "apply-to": "queues", priority: 0, definition: { "max-length-bytes": 1000 } }),
      // The policy columns only: the records' other fields per type are another scenario's matter.
      get(`/api/queues/${V}?columns=name,policy,effective_policy_definition`, { until: shown, exact: ["*.policy", "*.effective_policy_definition"] }),
    ],
  },
];
