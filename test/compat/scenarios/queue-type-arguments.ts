// Which declare and consume arguments each queue type accepts: RabbitMQ 3.10 refuses an argument
// it knows that the queue type has no use for ("invalid arg … of queue type rabbit_quorum_queue"),
// lets through arguments it does not know, and checks the type's arguments before their values
// (and, for a consumer, before exclusive use and a stream's prefetch).
import { amqp, vhostFixture, type Scenario, type Step } from "../scenario.js";

const V = "compat-queue-type-args";
const v = vhostFixture(V);

/** Every queue argument RabbitMQ 3.10 knows, with a value it would accept where it applies; and one it does not know. */
const ARGUMENTS: ReadonlyArray<readonly [string, unknown]> = [
  ["x-expires", 100000],
  ["x-message-ttl", 1000],
  ["x-dead-letter-exchange", "dlx"],
  ["x-max-length", 5],
  ["x-max-length-bytes", 5000],
  ["x-max-in-memory-length", 10],
  ["x-max-in-memory-bytes", 1000],
  ["x-max-priority", 5],
  ["x-overflow", "drop-head"],
  ["x-overflow", "reject-publish"],
  ["x-overflow", "reject-publish-dlx"],
  ["x-queue-mode", "lazy"],
  ["x-queue-version", 2],
  ["x-single-active-consumer", true],
  ["x-quorum-initial-group-size", 3],
  ["x-max-age", "1D"],
  ["x-stream-max-segment-size-bytes", 1000000],
  ["x-initial-cluster-size", 1],
  ["x-queue-leader-locator", "client-local"],
  ["x-queue-master-locator", "min-masters"],
  ["x-delivery-limit", 3],
  ["x-dead-letter-strategy", "at-least-once"],
  ["x-cancel-on-ha-failover", true],
  ["x-not-an-argument", 1],
];

function declares(type: string): Step[] {
  return ARGUMENTS.map(([key, value], i) =>
    amqp({ op: "declareQueue", queue: `${type}-${i}`, options: { durable: true, arguments: { "x-queue-type": type, [key]: value } } }),
  );
}

export const scenarios: Scenario[] = [
  { name: "classic queue arguments", ...v, steps: [amqp({ op: "open" }, { vhost: V }), ...declares("classic")] },
  { name: "quorum queue arguments", ...v, steps: [amqp({ op: "open" }, { vhost: V }), ...declares("quorum")] },
  { name: "stream arguments", ...v, steps: [amqp({ op: "open" }, { vhost: V }), ...declares("stream")] },
  {
    name: "queue type before values",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      // Refused by the type and by its value: which reason wins.
      amqp({ op: "declareQueue", queue: "s-len", options: { durable: true, arguments: { "x-queue-type": "stream", "x-max-length": "ten" } } }),
      amqp({ op: "declareQueue", queue: "q-age", options: { durable: true, arguments: { "x-queue-type": "quorum", "x-max-age": "soon" } } }),
      amqp({ op: "declareQueue", queue: "c-size", options: { durable: true, arguments: { "x-quorum-initial-group-size": "three" } } }),
      // A dead-letter routing key without an exchange, where the type allows both.
      amqp({ op: "declareQueue", queue: "q-dlrk", options: { durable: true, arguments: { "x-queue-type": "quorum", "x-dead-letter-routing-key": "k" } } }),
      amqp({ op: "declareQueue", queue: "c-dlrk", options: { durable: true, arguments: { "x-dead-letter-routing-key": "k" } } }),
      amqp({ op: "declareQueue", queue: "s-dlrk", options: { durable: true, arguments: { "x-queue-type": "stream", "x-dead-letter-routing-key": "k" } } }),
    ],
  },
  {
    name: "consumer arguments",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareQueue", queue: "cc", options: { durable: true } }),
      amqp({ op: "declareQueue", queue: "cq", options: { durable: true, arguments: { "x-queue-type": "quorum" } } }),
      amqp({ op: "declareQueue", queue: "cs", options: { durable: true, arguments: { "x-queue-type": "stream" } } }),
      ...["cc", "cq", "cs"].flatMap((queue) =>
        ([["x-priority", 5], ["x-priority", "high"], ["x-priority", true], ["x-stream-offset", "first"], ["x-cancel-on-ha-failover", true], ["x-not-an-argument", 1]] as const).map(([key, value]) =>
          amqp({ op: "consume", queue, prefetch: 10, options: { noAck: false, arguments: { [key]: value } } }),
        ),
      ),
      // The argument's refusal comes before a stream's missing prefetch and before exclusive use.
      amqp({ op: "consume", queue: "cs", options: { noAck: false, arguments: { "x-priority": 1 } } }),
      amqp({ op: "open" }, { vhost: V, conn: "owner" }),
      amqp({ op: "consume", queue: "cc", options: { exclusive: true } }, { conn: "owner" }),
      amqp({ op: "consume", queue: "cc", options: { noAck: true, arguments: { "x-stream-offset": "first" } } }),
    ],
  },
];
