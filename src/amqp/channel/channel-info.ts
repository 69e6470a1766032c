/** A channel's read-only view for the management API (RabbitMQ's channel and consumer records). */
import type { ChannelInfo } from "../../broker/index.js";
import type { ChannelState } from "./channel-state.js";

export function channelInfo(ch: ChannelState): ChannelInfo {
  const host = ch.host;
  return {
    number: ch.number,
    name: `${host.name} (${ch.number})`,
    connectionName: host.name,
    peerHost: host.peerHost,
    peerPort: host.peerPort,
    user: host.user,
    vhost: host.vhost,
    state: ch.state === "open" ? "running" : "closing",
    consumerCount: ch.consumers.size,
    prefetchCount: ch.consumerPrefetch,
    globalPrefetchCount: ch.prefetchCount,
    messagesUnacknowledged: ch.unacked.size,
    messagesUnconfirmed: ch.confirm?.unconfirmed ?? 0,
    messagesUncommitted: ch.tx?.publishes.length ?? 0,
    acksUncommitted: ch.tx?.settlements.length ?? 0,
    confirm: ch.confirm !== null,
    transactional: ch.tx !== null,
    createdAt: ch.createdAt,
    stats: ch.stats.snapshot(),
    consumers: [...ch.consumers.values()].map((c) => ({
      tag: c.tag,
      queue: c.queue.name,
      vhost: c.queue.vhost,
      ackRequired: !c.noAck,
      exclusive: c.exclusive,
      prefetchCount: c.prefetch,
      priority: c.priority,
      arguments: c.args as ChannelInfo["consumers"][number]["arguments"],
      activity: c.queue.consumerActivity(c),
    })),
  };
}
