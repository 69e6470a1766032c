/**
 * A connection's open channels by number (a Map, so a frame's lookup is the Map's own get), and
 * what concerns all of them at once: opening one within channel_max and the user's channel
 * limit, confirms before each socket write, resuming deliveries after 'drain', releasing
 * everything when the connection goes.
 */
import type { ChannelInfo } from "../../broker/index.js";
import { BrokerError } from "../../errors/broker-error.js";
import { Channel } from "../channel/channel.js";
import type { ChannelHost } from "../channel/channel-host.js";

export class ChannelTable extends Map<number, Channel> {
  /** channel.open: a new channel under `number` (counted and announced by the broker). */
  open(number: number, host: ChannelHost, channelMax: number): Channel {
    if (this.has(number)) throw new BrokerError("channelError", "second 'channel.open' seen");
    if (number > channelMax) {
      throw new BrokerError("notAllowed", `number of channels opened (${this.size}) has reached the negotiated channel_max (${channelMax})`);
    }
    host.broker.admitChannel(host.permissions!.user.name);
    const ch = new Channel(host, number);
    this.set(number, ch);
    host.broker.channelOpened(ch);
    return ch;
  }

  /** Whether any channel has a consumer (flow control never pauses such a connection). */
  get hasConsumers(): boolean {
    for (const ch of this.values()) if (ch.consumers.size > 0) return true;
    return false;
  }

  /** Right before each socket write: channels add their coalesced confirms. */
  beforeFlush(): void {
    for (const ch of this.values()) ch.beforeFlush();
  }

  /** The socket drained: consumers may take deliveries again. */
  resumeDeliveries(): void {
    for (const ch of this.values()) ch.resumeDeliveries();
  }

  /** The connection goes: every channel gives back what it holds (unacked messages are requeued). */
  releaseAll(): void {
    for (const ch of this.values()) ch.release();
    this.clear();
  }

  infos(): ChannelInfo[] {
    return [...this.values()].map((ch) => ch.info());
  }
}
