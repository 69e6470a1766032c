/** exchange.* handlers: thin adapters from AMQP arguments to Broker operations. */
import {
  encodeExchangeBindOk,
  encodeExchangeDeclareOk,
  encodeExchangeDeleteOk,
  encodeExchangeUnbindOk,
  MethodId,
} from "../../codec/generated.js";
import { on, type HandlerTable } from "./handler.js";

export const exchangeHandlers: HandlerTable = [
  on(MethodId.ExchangeDeclare, (ch, a) => {
    ch.host.broker.declareExchange(
      ch.ctx,
      ch.host.vhost,
      { name: a.exchange, type: a.type, durable: a.durable, autoDelete: a.autoDelete, internal: a.internal, arguments: a.arguments },
      a.passive,
    );
    if (!a.nowait) encodeExchangeDeclareOk(ch.output.out, ch.number, {});
  }),
  on(MethodId.ExchangeDelete, (ch, a) => {
    ch.host.broker.deleteExchange(ch.ctx, ch.host.vhost, a.exchange, a.ifUnused);
    if (!a.nowait) encodeExchangeDeleteOk(ch.output.out, ch.number, {});
  }),
  on(MethodId.ExchangeBind, (ch, a) => {
    ch.host.broker.bindExchange(ch.ctx, ch.host.vhost, a.destination, a.source, a.routingKey, a.arguments);
    if (!a.nowait) encodeExchangeBindOk(ch.output.out, ch.number, {});
  }),
  on(MethodId.ExchangeUnbind, (ch, a) => {
    ch.host.broker.unbindExchange(ch.ctx, ch.host.vhost, a.destination, a.source, a.routingKey, a.arguments);
    if (!a.nowait) encodeExchangeUnbindOk(ch.output.out, ch.number, {});
  }),
];
