/**
 * A local endpoint (local-endpoint.ts) as the management API lists it: RabbitMQ's direct
 * connection. RabbitMQ 3.10 lists a shovel or federation link to its own node (`amqp://` with no
 * host) as a connection of protocol "Direct 0-9-1", user "none" (or the URI's user), client
 * property connection_name "Shovel <name>", with channel 1 carrying the link's consumer (recorded
 * against it on 15672); so /api/connections, /api/channels, /api/consumers and the source queue's
 * consumer_details name the link's consumer, and agree with the queue's consumer count.
 * Built only when the API asks. Closing it from the API takes the link down (it reconnects after
 * its reconnect delay, as when RabbitMQ's direct connection is closed).
 */
import { randomBytes } from "node:crypto";
import type { ChannelCounters, ChannelInfo, ClientConnection, ConnectionInfo, ConsumerInfo } from "../broker/index.js";

/** What the endpoint tells about itself now. */
export interface DirectEndpointState {
  readonly consumer: ConsumerInfo | null;
  readonly unacked: number;
  readonly prefetch: number;
  readonly stats: Readonly<ChannelCounters>;
}

export class DirectConnection implements ClientConnection {
  readonly name: string;
  readonly channelCount = 1;
  readonly direct = true;
  private readonly connectedAt = Date.now();

  constructor(
    node: string,
    readonly vhost: string,
    /** "none" without a user in the URI (the broker acting for itself), as RabbitMQ shows it. */
    readonly user: string,
    private readonly connectionName: string,
    private readonly state: () => DirectEndpointState,
    private readonly close: (reason: string) => void,
  ) {
    // RabbitMQ names a direct connection by its process id (<rabbit@host.1795922084.2818.0>); a
    // random part keeps each one's name unique in the registry.
    this.name = `<${node || "coney"}.direct.${randomBytes(6).toString("hex")}>`;
  }

  forceClose(reason: string): void {
    this.close(reason);
  }

  info(): ConnectionInfo {
    const s = this.state();
    const channel: ChannelInfo = {
      number: 1,
      name: `${this.name} (1)`,
      connectionName: this.name,
      peerHost: "",
      peerPort: 0,
      user: this.user,
      vhost: this.vhost,
      state: "running",
      consumerCount: s.consumer === null ? 0 : 1,
      prefetchCount: s.prefetch,
      globalPrefetchCount: 0,
      messagesUnacknowledged: s.unacked,
      messagesUnconfirmed: 0,
      messagesUncommitted: 0,
      acksUncommitted: 0,
      confirm: false,
      transactional: false,
      createdAt: this.connectedAt,
      stats: s.stats,
      consumers: s.consumer === null ? [] : [s.consumer],
    };
    return {
      name: this.name,
      host: "",
      port: 0,
      peerHost: "",
      peerPort: 0,
      user: this.user,
      vhost: this.vhost,
      protocol: "Direct 0-9-1",
      authMechanism: "none",
      ssl: false,
      tlsSession: null,
      state: "running",
      connectedAt: this.connectedAt,
      channelMax: 0,
      frameMax: 0,
      heartbeat: 0,
      clientProperties: { connection_name: this.connectionName },
      recvOct: 0,
      sendOct: 0,
      recvCnt: 0,
      sendCnt: 0,
      channels: [channel],
    };
  }
}
