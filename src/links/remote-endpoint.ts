/**
 * An endpoint on another broker, over AMQP 0-9-1 with @cloudamqp/amqp-client: one connection,
 * a channel that consumes and one that publishes (in confirm mode when asked), and short-lived
 * channels for passive declares (a 404 closes the channel it happened on, as RabbitMQ's shovel
 * opens one for its ensure_queue). Any loss — socket, heartbeat, a channel closed by the server,
 * the consumer cancelled — ends the endpoint with `onDown(reason)`.
 */
import { readFileSync } from "node:fs";
import { AMQPClient, type AMQPChannel, type AMQPMessage } from "@cloudamqp/amqp-client";
import type { TlsOptions } from "node:tls";
import type { FieldTable } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import { joinBody, type Body } from "../broker/values/message-body.js";
import type { AmqpUri } from "./amqp-uri.js";
import type { Confirmed, ConsumeOptions, Endpoint, EndpointOptions, ExchangeOptions, LinkDelivery, QueueOptions } from "./endpoint.js";
import { fromClientProperties, toClientProperties } from "./field-mapping.js";

const EMPTY = Buffer.alloc(0);

function clientUrl(uri: AmqpUri, name: string): string {
  const user = encodeURIComponent(uri.username ?? "guest");
  const pass = encodeURIComponent(uri.password ?? (uri.username === null ? "guest" : ""));
  const host = uri.host.includes(":") ? `[${uri.host}]` : uri.host;
  const q = new URLSearchParams({ name, heartbeat: String(uri.heartbeat) });
  if (uri.channelMax > 0) q.set("channelMax", String(uri.channelMax));
  if (uri.frameMax > 0) q.set("frameMax", String(uri.frameMax));
  return `${uri.tls ? "amqps" : "amqp"}://${user}:${pass}@${host}:${uri.port}/${encodeURIComponent(uri.vhost)}?${q.toString()}`;
}

function tlsOptionsOf(uri: AmqpUri): TlsOptions | undefined {
  const t = uri.tlsOptions;
  if (!t) return undefined;
  const sni = t.serverNameIndication === "disable" ? "" : t.serverNameIndication;
  return {
    rejectUnauthorized: t.verify === "verify_peer",
    ...(t.cacertfile ? { ca: readFileSync(t.cacertfile) } : {}),
    ...(t.certfile ? { cert: readFileSync(t.certfile) } : {}),
    ...(t.keyfile ? { key: readFileSync(t.keyfile) } : {}),
    ...(t.password ? { passphrase: t.password } : {}),
    ...(sni !== undefined ? { servername: sni } : {}),
  };
}

export async function openRemoteEndpoint(uri: AmqpUri, opts: EndpointOptions): Promise<Endpoint> {
  const unsupported = uri.authMechanisms.find((m) => m.toLowerCase() !== "plain" && m.toLowerCase() !== "amqplain");
  if (unsupported !== undefined && !uri.authMechanisms.some((m) => m.toLowerCase() === "plain")) {
    throw new Error(`auth_mechanism ${unsupported} is not supported by Coney's links (PLAIN only)`);
  }
  // The client spreads these into tls.connect's options: servername and rejectUnauthorized pass through.
  const client = new AMQPClient(clientUrl(uri, opts.name), tlsOptionsOf(uri));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`connection timed out after ${uri.connectionTimeout} ms`)), uri.connectionTimeout);
      }),
    ]);
  } catch (err) {
    client.close().catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const endpoint = new RemoteEndpoint(uri, client, opts);
  await endpoint.start();
  return endpoint;
}

class RemoteEndpoint implements Endpoint {
  readonly uri: string;
  readonly local = false;
  onDown: ((reason: string) => void) | null = null;
  private consumeCh: AMQPChannel | null = null;
  private publishCh: AMQPChannel | null = null;
  private consumerTag: string | null = null;
  private ended = false;

  constructor(parsed: AmqpUri, private readonly client: AMQPClient, private readonly opts: EndpointOptions) {
    this.uri = parsed.display;
    client.onerror = (err) => this.down(err.message);
    client.ondisconnect = (err) => this.down(err?.message ?? "connection closed");
  }

  async start(): Promise<void> {
    this.consumeCh = await this.channel();
    this.publishCh = await this.channel();
    if (this.opts.confirms) await this.publishCh.confirmSelect();
  }

  private async channel(): Promise<AMQPChannel> {
    const ch = await this.client.channel();
    ch.onerror = (reason) => this.down(`channel closed by the broker: ${reason}`);
    return ch;
  }

  private down(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.client.close().catch(() => {});
    this.onDown?.(reason);
  }

  async ensureQueue(name: string, args: FieldTable = {}): Promise<number> {
    const probe = await this.client.channel();
    // A 404 closes this channel only: it must not end the endpoint.
    probe.onerror = () => {};
    try {
      const ok = await probe.queueDeclare(name, { passive: true });
      await probe.close().catch(() => {});
      return ok.messageCount;
    } catch (err) {
      if (!/NOT_FOUND|404/.test(String(err))) throw err;
    }
    const ch = await this.client.channel();
    try {
      await ch.queueDeclare(name, { durable: true, autoDelete: false, exclusive: false, passive: false }, toArgs(args));
    } finally {
      await ch.close().catch(() => {});
    }
    return 0;
  }

  async declareQueue(name: string, o: QueueOptions): Promise<{ name: string; messages: number }> {
    const ok = await this.consumeCh!.queueDeclare(name, { durable: o.durable ?? true, autoDelete: o.autoDelete ?? false, exclusive: o.exclusive ?? false, passive: false }, toArgs(o.args));
    return { name: ok.name, messages: ok.messageCount };
  }

  async declareExchange(name: string, type: string, o: ExchangeOptions): Promise<void> {
    await this.consumeCh!.exchangeDeclare(name, type, { durable: o.durable ?? true, autoDelete: o.autoDelete ?? false, internal: o.internal ?? false, passive: false }, toArgs(o.args));
  }

  async ensureExchange(name: string, type: string, o: ExchangeOptions): Promise<void> {
    const probe = await this.client.channel();
    // A 404 closes this channel only: it must not end the endpoint.
    probe.onerror = () => {};
    try {
      await probe.exchangeDeclare(name, type, { passive: true });
      await probe.close().catch(() => {});
      return;
    } catch (err) {
      if (!/NOT_FOUND|404/.test(String(err))) throw err;
    }
    await this.declareExchange(name, type, o);
  }

  async bindQueue(queue: string, exchange: string, key: string, args?: FieldTable): Promise<void> {
    await this.consumeCh!.queueBind(queue, exchange, key, toArgs(args));
  }

  async unbindQueue(queue: string, exchange: string, key: string, args?: FieldTable): Promise<void> {
    await this.consumeCh!.queueUnbind(queue, exchange, key, toArgs(args));
  }

  async bindExchange(destination: string, source: string, key: string, args?: FieldTable): Promise<void> {
    await this.consumeCh!.exchangeBind(destination, source, key, toArgs(args));
  }

  async unbindExchange(destination: string, source: string, key: string, args?: FieldTable): Promise<void> {
    await this.consumeCh!.exchangeUnbind(destination, source, key, toArgs(args));
  }

  async deleteQueue(name: string): Promise<void> {
    await this.consumeCh!.queueDelete(name);
  }

  async deleteExchange(name: string): Promise<void> {
    await this.consumeCh!.exchangeDelete(name);
  }

  async consume(queue: string, o: ConsumeOptions, onDelivery: (d: LinkDelivery) => void): Promise<void> {
    const ch = this.consumeCh!;
    if (!o.noAck) await ch.basicQos(o.prefetch);
    const consumer = await ch.basicConsume(queue, { noAck: o.noAck, exclusive: false, args: toArgs(o.args) }, (m: AMQPMessage) => onDelivery(deliveryOf(m)));
    this.consumerTag = consumer.tag;
    consumer.wait().then(
      () => {
        if (this.consumerTag === consumer.tag) this.down("the consumer was cancelled");
      },
      (err: unknown) => this.down(err instanceof Error ? err.message : String(err)),
    );
  }

  async cancel(): Promise<void> {
    const tag = this.consumerTag;
    this.consumerTag = null;
    if (tag !== null && !this.ended) await this.consumeCh!.basicCancel(tag);
  }

  ack(tag: number, multiple: boolean): void {
    if (!this.ended) this.consumeCh!.basicAck(tag, multiple).catch((err: unknown) => this.down(String(err)));
  }

  nack(tag: number, requeue: boolean): void {
    if (!this.ended) this.consumeCh!.basicNack(tag, requeue, false).catch((err: unknown) => this.down(String(err)));
  }

  publish(exchange: string, routingKey: string, properties: MessageProperties, body: Body, confirmed: Confirmed): void {
    if (this.ended) return;
    const sent = this.publishCh!.basicPublish(exchange, routingKey, joinBody(body), toClientProperties(properties));
    if (!this.opts.confirms) {
      // Handed over once written to the socket: a caller that waits for this (a shovel's
      // on-publish acks) keeps at most its prefetch in flight towards a slow broker.
      sent.then(() => confirmed(true), (err: unknown) => this.down(String(err)));
      return;
    }
    sent.then(
      () => confirmed(true),
      (err: unknown) => {
        // A nack keeps the channel open; anything else (channel or connection lost) ends the endpoint.
        if (this.ended || this.publishCh!.closed) this.down(String(err));
        else confirmed(false);
      },
    );
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // A broker that does not answer connection.close (gone, or stalled) must not hold the link: 2 s, then the socket goes.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.client.close().catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    if (!this.client.closed) this.client.socket?.destroy();
  }
}

function toArgs(args: FieldTable | undefined): Record<string, unknown> {
  return args ? (toClientProperties({ headers: args }).headers ?? {}) : {};
}

function deliveryOf(m: AMQPMessage): LinkDelivery {
  const raw = m.body as Uint8Array | null;
  const body = raw === null ? EMPTY : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  return { tag: m.deliveryTag, exchange: m.exchange, routingKey: m.routingKey, properties: fromClientProperties(m.properties), body, redelivered: m.redelivered };
}
