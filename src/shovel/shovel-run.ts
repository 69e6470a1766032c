/**
 * One run of a dynamic shovel, as RabbitMQ's amqp091 shovel does it: connect the source and the
 * destination (each a URI list), declare the destination queue and the source queue (or a
 * server-named exclusive queue bound to the source exchange), consume with the prefetch, and
 * republish each message — to dest-queue, or dest-exchange with dest-exchange-key, or where it
 * was published — with dest-publish-properties, the x-shovelled forward header and the
 * x-shovelled-timestamp header when asked. The source is settled per ack-mode: on-confirm after
 * the destination confirmed (at-least-once: a crash of either side requeues what was not
 * confirmed), on-publish once handed over, no-ack never. src-delete-after counts settled
 * messages and ends the shovel (it deletes itself) when they are done.
 */
import type { Broker, ResourceAlarms } from "../broker/index.js";
import type { FieldTable, FieldValue } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Endpoint, LinkDelivery } from "../links/endpoint.js";
import type { RunControl } from "../links/link-loop.js";
import { UriList } from "../links/open-endpoint.js";
import { ConfirmWindow } from "./confirm-window.js";
import { EMPTY_PROPERTIES, type ShovelConfig } from "./shovel-config.js";

export interface ShovelProgress {
  /** The URIs in use (credentials removed) while connected. */
  srcUri: string | null;
  destUri: string | null;
  /** Messages handed to the destination (settled at the source, for on-confirm). */
  transferred: number;
}

export class ShovelRun {
  readonly progress: ShovelProgress = { srcUri: null, destUri: null, transferred: 0 };
  private readonly srcUris: UriList;
  private readonly destUris: UriList;

  /** `finished` is called when src-delete-after is reached: the shovel deletes its parameter. */
  constructor(
    private readonly broker: Broker,
    private readonly config: ShovelConfig,
    private readonly node: { readonly clusterName: () => string; readonly alarms: ResourceAlarms | null },
    private readonly finished: () => void,
  ) {
    this.srcUris = new UriList(config.srcUris);
    this.destUris = new UriList(config.destUris);
  }

  /** A LinkRun: establishes the shovel, returns what closes it. */
  readonly run = async (control: RunControl): Promise<() => Promise<void>> => {
    const c = this.config;
    let src: Endpoint | null = null;
    let dest: Endpoint | null = null;
    const close = async (): Promise<void> => {
      this.progress.srcUri = null;
      this.progress.destUri = null;
      await Promise.all([src?.close(), dest?.close()]);
    };
    try {
      const connName = `Shovel ${c.name}`;
      src = (await this.srcUris.open(this.broker, { name: connName, confirms: false, alarms: this.node.alarms }).catch((err: unknown) => rethrow("source connection failed", err))).endpoint;
      src.onDown = (reason) => control.down(`source connection failed: ${reason}`);
      dest = (await this.destUris.open(this.broker, { name: connName, confirms: c.ackMode === "on-confirm", alarms: this.node.alarms }).catch((err: unknown) => rethrow("destination connection failed", err))).endpoint;
      dest.onDown = (reason) => control.down(`destination connection failed: ${reason}`);
      if (c.destQueue !== null) await dest.ensureQueue(c.destQueue, c.destQueueArgs);
      let queue: string;
      let ready = 0;
      if (c.srcQueue !== null) {
        ready = await src.ensureQueue(c.srcQueue, c.srcQueueArgs);
        queue = c.srcQueue;
      } else {
        queue = (await src.declareQueue("", { exclusive: true, durable: false, autoDelete: false })).name;
        await src.bindQueue(queue, c.srcExchange ?? "", c.srcExchangeKey);
      }
      const remaining = c.deleteAfter === "never" ? Infinity : c.deleteAfter === "queue-length" ? ready : c.deleteAfter;
      this.progress.srcUri = src.uri;
      this.progress.destUri = dest.uri;
      if (remaining === 0) {
        queueMicrotask(this.finished);
        return close;
      }
      await this.forward(src, dest, queue, remaining);
      control.up();
      return close;
    } catch (err) {
      await close();
      throw err;
    }
  };

  private async forward(src: Endpoint, dest: Endpoint, queue: string, total: number): Promise<void> {
    const c = this.config;
    const progress = this.progress;
    let remaining = total;
    let unpublished = total;
    const settled = (n: number): void => {
      progress.transferred += n;
      remaining -= n;
      if (remaining <= 0) this.finished();
    };
    const window = c.ackMode === "no-ack" ? null : new ConfirmWindow(src, settled);
    const onDelivery = (d: LinkDelivery): void => {
      // delete-after reached: the rest stays unacked, and goes back to the queue when the shovel closes.
      if (unpublished === 0) return;
      unpublished--;
      const exchange = c.destQueue !== null ? "" : (c.destExchange ?? d.exchange);
      const key = c.destQueue !== null ? c.destQueue : (c.destExchangeKey ?? d.routingKey);
      const props = this.properties(d.properties, src.uri, dest.uri);
      if (window === null) {
        dest.publish(exchange, key, props, d.body, noop);
        settled(1);
      } else if (c.ackMode === "on-publish") {
        window.add(d.tag);
        // Acked once handed over (not confirmed): the destination's nack cannot come back here.
        dest.publish(exchange, key, props, d.body, () => window.resolve(d.tag, true));
      } else {
        window.add(d.tag);
        dest.publish(exchange, key, props, d.body, (ok) => window.resolve(d.tag, ok));
      }
    };
    await src.consume(queue, { prefetch: c.prefetch, noAck: c.ackMode === "no-ack", args: c.srcConsumerArgs }, onDelivery);
  }

  /** dest-publish-properties, then the forward and timestamp headers (RabbitMQ's order). */
  private properties(p: MessageProperties, srcUri: string, destUri: string): MessageProperties {
    const c = this.config;
    if (!c.addForwardHeaders && !c.addTimestampHeader && c.publishProperties === EMPTY_PROPERTIES) return p;
    const out: MessageProperties = { ...p, ...c.publishProperties };
    if (c.addForwardHeaders || c.addTimestampHeader) out.headers = { ...(p.headers ?? {}) };
    if (c.addForwardHeaders) {
      const record: FieldTable = { "shovelled-by": this.node.clusterName(), "shovel-type": "dynamic", "shovel-name": c.name, "shovel-vhost": c.vhost, "src-uri": srcUri, "dest-uri": destUri };
      if (c.srcQueue !== null) record["src-queue"] = c.srcQueue;
      else {
        record["src-exchange"] = c.srcExchange ?? "";
        record["src-exchange-key"] = c.srcExchangeKey;
      }
      if (c.destExchange !== null) record["dest-exchange"] = c.destExchange;
      if (c.destExchangeKey !== null) record["dest-exchange-key"] = c.destExchangeKey;
      if (c.destQueue !== null) record["dest-queue"] = c.destQueue;
      const before = out.headers!["x-shovelled"];
      out.headers!["x-shovelled"] = [record, ...(Array.isArray(before) ? (before as FieldValue[]) : [])];
    }
    if (c.addTimestampHeader) out.headers!["x-shovelled-timestamp"] = Math.floor(Date.now() / 1000);
    return out;
  }
}

const noop = (): void => {};

function rethrow(what: string, err: unknown): never {
  throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}
