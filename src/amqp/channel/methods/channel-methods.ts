/** channel.* and access.request handlers (AMQP 0-9-1 class 20 and the deprecated class 30). */
import { encodeAccessRequestOk, encodeChannelFlowOk, encodeChannelOpenOk, MethodId } from "../../codec/generated.js";
import { BrokerError } from "../../../errors/broker-error.js";
import { on, type HandlerTable } from "./handler.js";

export const channelHandlers: HandlerTable = [
  on(MethodId.ChannelOpen, (ch) => {
    encodeChannelOpenOk(ch.output.out, ch.number, { channelId: Buffer.alloc(0) });
  }),
  on(MethodId.ChannelClose, (ch) => ch.closeByClient()),
  on(MethodId.ChannelCloseOk, () => {}),
  on(MethodId.ChannelFlow, (ch, args) => {
    // RabbitMQ never lets a client stop the server's deliveries this way.
    if (!args.active) throw new BrokerError("notImplemented", "active=false");
    encodeChannelFlowOk(ch.output.out, ch.number, { active: true });
  }),
  on(MethodId.ChannelFlowOk, () => {}),
  on(MethodId.AccessRequest, (ch) => {
    encodeAccessRequestOk(ch.output.out, ch.number, { ticket: 1 });
  }),
];
