/** Typing glue for method handler tables: `on(MethodId.X, (ch, args) => …)` gets X's argument type. */
import type { Method } from "../../codec/generated.js";
import type { Channel } from "../channel.js";

export type HandlerTable = Array<[number, (ch: Channel, m: Method) => void]>;

export function on<I extends Method["id"]>(
  id: I,
  handler: (ch: Channel, args: Extract<Method, { id: I }>["args"]) => void,
): [number, (ch: Channel, m: Method) => void] {
  // The table is keyed by id, so m.args is the args type of I; TS cannot see through the lookup.
  return [id, (ch, m) => handler(ch, m.args as never)];
}
