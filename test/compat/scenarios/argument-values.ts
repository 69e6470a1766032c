// Arguments of the wrong type or value where an exchange or a binding takes one: a headers
// binding's x-match and an exchange's alternate-exchange, with RabbitMQ 3.10's texts (which name
// the AMQP field type received; integers here are ones every client sends as signedint).
import { amqp, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-argument-values";
const v = vhostFixture(V);

export const scenarios: Scenario[] = [
  {
    name: "headers binding x-match",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      amqp({ op: "declareQueue", queue: "h" }),
      ...[100000, true, "", "some", "all", "any-with-x"].map((mode) => amqp({ op: "bindQueue", queue: "h", exchange: "amq.headers", routingKey: "", args: { "x-match": mode } })),
    ],
  },
  {
    name: "alternate-exchange argument",
    ...v,
    steps: [
      amqp({ op: "open" }, { vhost: V }),
      ...[100000, true, { a: 1 }, "ae-target"].map((ae, i) => amqp({ op: "declareExchange", exchange: `x${i}`, type: "direct", options: { arguments: { "alternate-exchange": ae } } })),
    ],
  },
];
