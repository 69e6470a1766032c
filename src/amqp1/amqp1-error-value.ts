/** An Amqp1Error as the error composite (part 2 §2.8.14) close, end and detach carry. */
import { str, sym, type Amqp10Value } from "../amqp10/amqp10-value.js";
import type { Amqp1Error } from "./amqp1-errors.js";
import { described, PERFORMATIVE } from "./performatives.js";

export function errorValue(e: Amqp1Error): Amqp10Value {
  return described(PERFORMATIVE.error, [sym(e.condition), str(e.description)]);
}
