/**
 * Typing glue for method handler tables: `on(MethodId.X, (ch, args) => …)` gets X's argument
 * type. Handlers see the channel as ChannelState, never the Channel class, so the table sits
 * below channel.ts.
 */
import type { Method } from "../../codec/generated.js";
import type { ChannelState } from "../channel-state.js";

export type MethodHandler = (ch: ChannelState, m: Method) => void;
export type HandlerTable = Array<[number, MethodHandler]>;

export function on<I extends Method["id"]>(id: I, handler: (ch: ChannelState, args: Extract<Method, { id: I }>["args"]) => void): [number, MethodHandler] {
  // The table is keyed by id, so m.args is the args type of I; TS cannot see through the lookup.
  return [id, (ch, m) => handler(ch, m.args as never)];
}
