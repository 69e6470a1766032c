/**
 * Incoming channel methods are dispatched through this table (method id → handler), built from
 * one small file per AMQP class. A method missing here is one a client must not send.
 */
import { basicHandlers } from "./methods/basic-methods.js";
import { channelHandlers } from "./methods/channel-methods.js";
import { exchangeHandlers } from "./methods/exchange-methods.js";
import { queueHandlers } from "./methods/queue-methods.js";
import { txAndConfirmHandlers } from "./methods/tx-confirm-methods.js";
import type { HandlerTable, MethodHandler } from "./methods/handler.js";

export const METHOD_HANDLERS: ReadonlyMap<number, MethodHandler> = new Map(
  ([] as HandlerTable).concat(channelHandlers, exchangeHandlers, queueHandlers, basicHandlers, txAndConfirmHandlers),
);
