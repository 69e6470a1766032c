/**
 * One side of a link (a shovel's source or destination, a federation link's upstream or
 * downstream), whether it is another broker over AMQP 0-9-1 (remote-endpoint.ts) or the broker
 * this link runs in (local-endpoint.ts, no TCP to itself). Shovels and federation see only this
 * interface: declare what they need, consume with a prefetch and settle by delivery tag, publish
 * with or without a confirm. An endpoint is opened connected; when it goes down by itself it
 * calls `onDown` once with why, and is finished (the link opens a new one).
 */
import type { Body } from "../broker/values/message-body.js";
import type { FieldTable } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { ResourceAlarms } from "../broker/index.js";

export interface LinkDelivery {
  /** The endpoint's delivery tag: ack/nack take it. Increasing per endpoint. */
  readonly tag: number;
  readonly exchange: string;
  readonly routingKey: string;
  readonly properties: MessageProperties;
  readonly body: Body;
  readonly redelivered: boolean;
}

export interface ConsumeOptions {
  readonly prefetch: number;
  readonly noAck: boolean;
  readonly args?: FieldTable;
}

export interface QueueOptions {
  readonly durable?: boolean;
  readonly autoDelete?: boolean;
  readonly exclusive?: boolean;
  readonly args?: FieldTable;
}

export interface ExchangeOptions {
  readonly durable?: boolean;
  readonly autoDelete?: boolean;
  readonly internal?: boolean;
  readonly args?: FieldTable;
}

/** Publish confirms: `ok` false when the broker nacked (a queue refused it). */
export type Confirmed = (ok: boolean) => void;

export interface Endpoint {
  /** The URI as shown (no credentials). */
  readonly uri: string;
  readonly local: boolean;
  /**
   * RabbitMQ's shovel ensure_queue: the queue's ready count when it exists; otherwise it is
   * declared durable with `args` (0).
   */
  ensureQueue(name: string, args?: FieldTable): Promise<number>;
  /** queue.declare; "" gets a server-named queue. Returns the name and its ready count. */
  declareQueue(name: string, opts: QueueOptions): Promise<{ name: string; messages: number }>;
  declareExchange(name: string, type: string, opts: ExchangeOptions): Promise<void>;
  /**
   * RabbitMQ's federation ensure_upstream_exchange: an existing exchange is used as it is (a
   * passive declare, whose 404 ends no more than a short-lived channel); a missing one is declared.
   */
  ensureExchange(name: string, type: string, opts: ExchangeOptions): Promise<void>;
  bindQueue(queue: string, exchange: string, key: string, args?: FieldTable): Promise<void>;
  unbindQueue(queue: string, exchange: string, key: string, args?: FieldTable): Promise<void>;
  bindExchange(destination: string, source: string, key: string, args?: FieldTable): Promise<void>;
  unbindExchange(destination: string, source: string, key: string, args?: FieldTable): Promise<void>;
  deleteQueue(name: string): Promise<void>;
  deleteExchange(name: string): Promise<void>;
  /** Starts one consumer on `queue` (at most one per endpoint); deliveries arrive in order. */
  consume(queue: string, opts: ConsumeOptions, onDelivery: (d: LinkDelivery) => void): Promise<void>;
  /** Cancels the consumer (its unacked deliveries stay unacked until settled or the endpoint closes). */
  cancel(): Promise<void>;
  ack(tag: number, multiple: boolean): void;
  nack(tag: number, requeue: boolean): void;
  /**
   * Publishes on this endpoint's publishing side. In confirm mode (`openEndpoint`'s `confirms`)
   * `confirmed` is called once the broker has it safe (stored, for persistent messages to durable
   * queues) or refused it; otherwise once it was handed over (written to the socket, or routed).
   */
  publish(exchange: string, routingKey: string, properties: MessageProperties, body: Body, confirmed: Confirmed): void;
  /** Told once when the endpoint goes down by itself (connection lost, queue deleted, channel error). */
  onDown: ((reason: string) => void) | null;
  /** Closes it; unacked deliveries go back to their queue. Never calls onDown. */
  close(): Promise<void>;
}

export interface EndpointOptions {
  /** The connection name the remote broker shows (connection_name client property). */
  readonly name: string;
  /** Publishes wait for publisher confirms. */
  readonly confirms: boolean;
  /**
   * This node's memory and disk alarms: a local endpoint holds its publishes while one is on, as
   * a blocked connection's (a remote broker blocks a remote endpoint itself).
   */
  readonly alarms?: ResourceAlarms | null;
}
