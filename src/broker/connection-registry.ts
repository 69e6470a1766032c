/**
 * The client connections the broker knows about, whatever their transport, and the read-only
 * views of them (connection, channel, consumer) that the management API turns into records.
 * vhost and user deletion close theirs through this registry.
 */
import type { FieldTable } from "./values/field-value.js";
import type { ConsumerActivity } from "./queue/queue-consumer.js";

export interface ConsumerInfo {
  readonly tag: string;
  readonly queue: string;
  readonly vhost: string;
  readonly ackRequired: boolean;
  readonly exclusive: boolean;
  readonly prefetchCount: number;
  readonly priority: number;
  readonly arguments: FieldTable;
  readonly activity: ConsumerActivity;
}

export interface ChannelCounters {
  publish: number;
  confirm: number;
  deliver: number;
  deliverNoAck: number;
  get: number;
  getNoAck: number;
  ack: number;
  redeliver: number;
  returnUnroutable: number;
  dropUnroutable: number;
  /** basic.get that found the queue empty. */
  getEmpty: number;
}

/** A channel's counters before its first message. */
export function emptyChannelCounters(): ChannelCounters {
  return { publish: 0, confirm: 0, deliver: 0, deliverNoAck: 0, get: 0, getNoAck: 0, ack: 0, redeliver: 0, returnUnroutable: 0, dropUnroutable: 0, getEmpty: 0 };
}

export interface ChannelInfo {
  readonly number: number;
  /** "<connection name> (<number>)", as RabbitMQ names channels. */
  readonly name: string;
  readonly connectionName: string;
  readonly peerHost: string;
  readonly peerPort: number;
  readonly user: string;
  readonly vhost: string;
  readonly state: "running" | "closing";
  readonly consumerCount: number;
  /** Prefetch given to new consumers (basic.qos global=false). */
  readonly prefetchCount: number;
  /** Channel-wide prefetch (basic.qos global=true). */
  readonly globalPrefetchCount: number;
  readonly messagesUnacknowledged: number;
  readonly messagesUnconfirmed: number;
  readonly messagesUncommitted: number;
  readonly acksUncommitted: number;
  readonly confirm: boolean;
  readonly transactional: boolean;
  readonly createdAt: number;
  readonly stats: Readonly<ChannelCounters>;
  readonly consumers: readonly ConsumerInfo[];
}

/** What a TLS connection negotiated, in the terms of RabbitMQ's connection record. */
export interface TlsSessionInfo {
  readonly protocol: string;
  readonly keyExchange: string;
  readonly cipher: string;
  readonly hash: string;
  /** Empty strings when the client presented no certificate (RabbitMQ's convention). */
  readonly peerCertIssuer: string;
  readonly peerCertSubject: string;
  readonly peerCertValidity: string;
}

export interface ConnectionInfo {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly peerHost: string;
  readonly peerPort: number;
  readonly user: string;
  readonly vhost: string;
  readonly protocol: string;
  readonly authMechanism: string;
  readonly ssl: boolean;
  /** What TLS negotiated (names as RabbitMQ's ssl_* fields); null for plain TCP. */
  readonly tlsSession: TlsSessionInfo | null;
  readonly state: string;
  readonly connectedAt: number;
  readonly channelMax: number;
  readonly frameMax: number;
  /** Negotiated heartbeat in seconds (RabbitMQ's `timeout` field). */
  readonly heartbeat: number;
  readonly clientProperties: FieldTable;
  readonly recvOct: number;
  readonly sendOct: number;
  readonly recvCnt: number;
  readonly sendCnt: number;
  readonly channels: readonly ChannelInfo[];
}

/** A native stream publisher (src/stream), as rabbitmq_stream_management lists it. */
export interface StreamPublisherInfo {
  readonly id: number;
  readonly reference: string;
  readonly stream: string;
  readonly published: number;
  readonly confirmed: number;
  readonly errored: number;
}

/** A native stream subscription (src/stream), as rabbitmq_stream_management lists it. */
export interface StreamConsumerInfo {
  readonly id: number;
  readonly stream: string;
  /** The next offset it reads. */
  readonly offset: number;
  /** Messages committed beyond its position. */
  readonly offsetLag: number;
  readonly credits: number;
  readonly consumed: number;
  /** False while another single-active-consumer member has the turn. */
  readonly active: boolean;
  readonly properties: Readonly<Record<string, string>>;
}

export interface ClientConnection {
  readonly name: string;
  readonly vhost: string;
  readonly user: string;
  /** Open channels, for the user's max-channels limit. */
  readonly channelCount: number;
  /** True for a connection with no socket: a shovel or federation link to its own node (RabbitMQ's direct connection). */
  readonly direct?: boolean;
  /** Closes the connection with CONNECTION_FORCED and the given reason. */
  forceClose(reason: string): void;
  /** A consistent snapshot for the management API. */
  info(): ConnectionInfo;
  /** A native stream connection's publishers and subscriptions (absent for other protocols). */
  streamDetails?(): { readonly publishers: readonly StreamPublisherInfo[]; readonly consumers: readonly StreamConsumerInfo[] };
}

/** A channel as a transport hands it to Broker.channelOpened / channelClosed. */
export interface ChannelSource {
  info(): ChannelInfo;
}

export class ConnectionRegistry<C extends ClientConnection = ClientConnection> {
  private readonly byName = new Map<string, C>();
  /** The node's name, for connection events (set by the composition root). */
  node = "";
  /** Told each connection that comes or goes (the broker announces connection.created / closed). */
  changed: ((c: C, added: boolean) => void) | null = null;

  add(c: C): void {
    this.byName.set(c.name, c);
    this.changed?.(c, true);
  }

  remove(c: C): void {
    if (this.byName.get(c.name) !== c) return;
    this.byName.delete(c.name);
    this.changed?.(c, false);
  }

  get(name: string): C | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.byName.size;
  }

  list(): C[] {
    return [...this.byName.values()];
  }

  inVhost(vhost: string): C[] {
    return this.list().filter((c) => c.vhost === vhost);
  }

  ofUser(user: string): C[] {
    return this.list().filter((c) => c.user === user);
  }
}
