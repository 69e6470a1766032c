/**
 * Turns any error raised while handling a frame into the protocol's answer: the reply code and
 * text of channel.close or connection.close, per the error catalogue. Errors that are not
 * BrokerErrors are bugs; they become INTERNAL_ERROR on the connection, never a crash.
 */
import { CodecError } from "../codec/codec-error.js";
import { FrameError } from "../codec/frame-reader.js";
import { BrokerError } from "../../errors/broker-error.js";

export interface CloseReply {
  readonly level: "channel" | "connection";
  readonly code: number;
  readonly text: string;
}

export function replyFor(err: unknown): CloseReply {
  let be: BrokerError;
  if (err instanceof BrokerError) be = err;
  else if (err instanceof FrameError) be = new BrokerError("frameError", err.message);
  else if (err instanceof CodecError) be = new BrokerError("syntaxError", err.message);
  else be = new BrokerError("internalError", "internal error");
  return { level: be.spec.level, code: be.spec.amqpCode, text: truncate(be.replyText) };
}

/** reply-text is a shortstr: at most 255 bytes. */
function truncate(text: string): string {
  if (Buffer.byteLength(text) <= 255) return text;
  let t = text.slice(0, 255);
  while (Buffer.byteLength(t) > 255) t = t.slice(0, -1);
  return t;
}
