/**
 * A channel's message counters, and the one place that says which broker-wide and vhost
 * counters move with them: a delivery counts on the channel, its vhost and the broker at once.
 * Each event is one method call doing plain field increments (no lookup by name, no
 * allocation), so counting costs on the hot path what the hand-written increments did.
 */
import type { BrokerStats, ChannelCounters, VHostStats } from "../../broker/index.js";

export class ChannelStats implements ChannelCounters {
  publish = 0;
  confirm = 0;
  deliver = 0;
  deliverNoAck = 0;
  get = 0;
  getNoAck = 0;
  ack = 0;
  redeliver = 0;
  returnUnroutable = 0;
  dropUnroutable = 0;
  getEmpty = 0;

  constructor(
    private readonly broker: BrokerStats,
    private readonly vhost: VHostStats,
  ) {}

  /** A basic.publish's content is complete (before routing; a tx publish counts here too). */
  published(bodySize: number): void {
    this.publish++;
    this.broker.messageSizes.observe(bodySize);
  }

  /** A publish on a channel in confirm mode reached routing (RabbitMQ's messages_received_confirm). */
  publishedForConfirm(): void {
    this.broker.receivedConfirm++;
  }

  /** An unroutable publish: returned to a mandatory publisher, or dropped. */
  unroutable(returned: boolean): void {
    if (returned) {
      this.returnUnroutable++;
      this.broker.returnUnroutable++;
      this.vhost.returnUnroutable++;
    } else {
      this.dropUnroutable++;
      this.broker.dropUnroutable++;
      this.vhost.dropUnroutable++;
    }
  }

  /** `n` messages confirmed to the publisher (RabbitMQ counts messages, not basic.ack frames). */
  confirmed(n: number): void {
    this.confirm += n;
    this.broker.confirm += n;
    this.vhost.confirm += n;
  }

  /** basic.deliver to a consumer. */
  delivered(noAck: boolean, redelivered: boolean): void {
    if (noAck) {
      this.deliverNoAck++;
      this.broker.deliverNoAck++;
      this.vhost.deliverNoAck++;
    } else {
      this.deliver++;
      this.broker.deliver++;
      this.vhost.deliver++;
    }
    if (redelivered) {
      this.redeliver++;
      this.broker.redeliver++;
      this.vhost.redeliver++;
    }
  }

  /** basic.get-ok; RabbitMQ counts no redelivery for gets. */
  got(noAck: boolean): void {
    if (noAck) {
      this.getNoAck++;
      this.broker.getNoAck++;
      this.vhost.getNoAck++;
    } else {
      this.get++;
      this.broker.get++;
      this.vhost.get++;
    }
  }

  gotEmpty(): void {
    this.getEmpty++;
    this.broker.getEmpty++;
    this.vhost.getEmpty++;
  }

  acked(): void {
    this.ack++;
    this.broker.ack++;
    this.vhost.ack++;
  }

  /** queue.declare succeeded (RabbitMQ's queue_declared churn counter; broker-wide only). */
  queueDeclared(): void {
    this.broker.queueDeclared++;
  }

  /** A consistent copy for the management API. */
  snapshot(): ChannelCounters {
    return {
      publish: this.publish,
      confirm: this.confirm,
      deliver: this.deliver,
      deliverNoAck: this.deliverNoAck,
      get: this.get,
      getNoAck: this.getNoAck,
      ack: this.ack,
      redeliver: this.redeliver,
      returnUnroutable: this.returnUnroutable,
      dropUnroutable: this.dropUnroutable,
      getEmpty: this.getEmpty,
    };
  }
}
