/**
 * Broker-wide counters, incremented where the events happen (no sampling lag). The management
 * API turns them into message_stats and churn_rates; rates come from periodic samples.
 */
export class BrokerStats {
  publish = 0;
  deliver = 0;
  deliverNoAck = 0;
  get = 0;
  getNoAck = 0;
  ack = 0;
  confirm = 0;
  redeliver = 0;
  returnUnroutable = 0;
  dropUnroutable = 0;
  connectionCreated = 0;
  connectionClosed = 0;
  channelCreated = 0;
  channelClosed = 0;
  queueDeclared = 0;
  queueCreated = 0;
  queueDeleted = 0;
}
