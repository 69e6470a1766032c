/**
 * exchange.* handlers: thin adapters from AMQP arguments to Broker operations. A change is
 * answered once every worker follows it (answered-everywhere.ts); a passive declare changes nothing.
 */
import {
  encodeExchangeBindOk,
  encodeExchangeDeclareOk,
  encodeExchangeDeleteOk,
  encodeExchangeUnbindOk,
  MethodId,
} from "../../codec/generated.js";
import { on, type HandlerTable } from "./handler.js";
import { answerEverywhere } from "./answered-everywhere.js";

const EXCHANGE_CLASS = 40;

export const exchangeHandlers: HandlerTable = [
  on(MethodId.ExchangeDeclare, (ch, a) => {
    ch.host.broker.declareExchange(
      ch.ctx,
      ch.host.vhost,
      { name: a.exchange, type: a.type, durable: a.durable, autoDelete: a.autoDelete, internal: a.internal, arguments: a.arguments },
      a.passive,
    );
    const answer = (): void => {
      if (!a.nowait) encodeExchangeDeclareOk(ch.output.out, ch.number, {});
    };
    if (a.passive) return answer();
    answerEverywhere(ch, undefined, EXCHANGE_CLASS, 10, answer);
  }),
  on(MethodId.ExchangeDelete, (ch, a) => {
    ch.host.broker.deleteExchange(ch.ctx, ch.host.vhost, a.exchange, a.ifUnused);
    answerEverywhere(ch, undefined, EXCHANGE_CLASS, 20, () => {
      if (!a.nowait) encodeExchangeDeleteOk(ch.output.out, ch.number, {});
    });
  }),
  on(MethodId.ExchangeBind, (ch, a) => {
    ch.host.broker.bindExchange(ch.ctx, ch.host.vhost, a.destination, a.source, a.routingKey, a.arguments);
    answerEverywhere(ch, undefined, EXCHANGE_CLASS, 30, () => {
      if (!a.nowait) encodeExchangeBindOk(ch.output.out, ch.number, {});
    });
  }),
  on(MethodId.ExchangeUnbind, (ch, a) => {
    ch.host.broker.unbindExchange(ch.ctx, ch.host.vhost, a.destination, a.source, a.routingKey, a.arguments);
    answerEverywhere(ch, undefined, EXCHANGE_CLASS, 40, () => {
      if (!a.nowait) encodeExchangeUnbindOk(ch.output.out, ch.number, {});
    });
  }),
];
