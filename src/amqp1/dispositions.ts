/** The fields of a disposition the broker sends as receiver (role true), settled, with `state`. */
import type { Amqp10Value } from "../amqp10/amqp10-value.js";

export function disposition(first: number, last: number, state: Amqp10Value): Amqp10Value[] {
  return [
    { type: "boolean", value: true },
    { type: "uint", value: first },
    first === last ? { type: "null" } : { type: "uint", value: last },
    { type: "boolean", value: true },
    state,
  ];
}
