/** A channel-level refusal as amqplib reports it: the action rejects and the channel's error names the reply. */
import assert from "node:assert/strict";
import type { Channel, ChannelModel } from "amqplib";
import { withTimeout } from "./wait.js";

/** Runs `action` on a fresh channel of `conn`; resolves with the message of the channel's close error. */
export async function channelClosedBy(conn: ChannelModel, action: (c: Channel) => Promise<unknown>): Promise<string> {
  const c = await conn.createChannel();
  const closed = new Promise<string>((resolve) => c.on("error", (e: Error) => resolve(e.message)));
  await assert.rejects(action(c));
  return withTimeout(closed, 5000, "channel close");
}
