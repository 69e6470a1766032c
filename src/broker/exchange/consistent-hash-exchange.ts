/**
 * The x-consistent-hash exchange (RabbitMQ's rabbitmq_consistent_hash_exchange plugin): a
 * binding's key is its weight, a positive integer; each message goes to exactly one binding,
 * chosen by hashing its routing key onto a ring (hash-ring.ts) where every binding holds
 * points in proportion to its weight. The exchange arguments `hash-header` (a header's value) or `hash-property`
 * (message_id, correlation_id or timestamp) hash something else; a message without that header
 * or property is routed nowhere.
 */
import { BrokerError } from "../../errors/broker-error.js";
import type { FieldValue } from "../values/field-value.js";
import type { MessageProperties } from "../values/message-properties.js";
import { Exchange, type Destination, type ExchangeBinding, type ExchangeSpec } from "./exchange.js";
import { HashRing, hashBytes, hashString } from "./hash-ring.js";

const PROPERTIES = ["message_id", "correlation_id", "timestamp"] as const;
type HashProperty = (typeof PROPERTIES)[number];
const INTEGER = /^[+-]?[0-9]+$/;
/** The largest weight a binding may have (its ring points are built at bind time). */
const MAX_WEIGHT = 1000;

export class ConsistentHashExchange extends Exchange {
  readonly type = "x-consistent-hash";
  private readonly ring = new HashRing<Destination>();
  private readonly hashHeader: string | null;
  private readonly hashProperty: HashProperty | null;

  constructor(vhost: string, spec: Omit<ExchangeSpec, "type">) {
    super(vhost, spec);
    const header = spec.arguments["hash-header"];
    const property = spec.arguments["hash-property"];
    this.hashHeader = typeof header === "string" ? header : null;
    this.hashProperty = typeof property === "string" && (PROPERTIES as readonly string[]).includes(property) ? (property as HashProperty) : null;
  }

  /** RabbitMQ's validate: hash-header and hash-property exclude each other; only three properties hash. */
  static validate(spec: ExchangeSpec): void {
    const header = spec.arguments["hash-header"];
    const property = spec.arguments["hash-property"];
    if (header !== undefined && property !== undefined) {
      throw new BrokerError("preconditionFailed", "hash-header and hash-property are mutually exclusive");
    }
    if (property !== undefined && !(typeof property === "string" && (PROPERTIES as readonly string[]).includes(property))) {
      throw new BrokerError("preconditionFailed", `Unsupported property: ${typeof property === "string" ? property : JSON.stringify(property)}`);
    }
  }

  override validateBinding(routingKey: string): void {
    if (!INTEGER.test(routingKey)) throw new BrokerError("preconditionFailed", `The binding key must be an integer: <<${JSON.stringify(routingKey)}>>`);
    const weight = Number(routingKey);
    if (weight < 1) throw new BrokerError("preconditionFailed", "The binding key must be greater than 0");
    // Coney's own limit (RabbitMQ has none): a binding holds weight × 1024 ring points.
    if (weight > MAX_WEIGHT) throw new BrokerError("preconditionFailed", `The binding key must be at most ${MAX_WEIGHT}`);
  }

  protected addRoute(b: ExchangeBinding): void {
    this.ring.add(b.key, b.destination, Number(b.routingKey));
  }

  protected removeRoute(b: ExchangeBinding): void {
    this.ring.remove(b.key);
  }

  route(routingKey: string, properties: MessageProperties, out: Destination[]): void {
    if (this.ring.size === 0) return;
    const hash = this.hashOf(routingKey, properties);
    if (hash < 0) return;
    const d = this.ring.lookup(hash);
    if (d !== undefined) out.push(d);
  }

  /** The message's hash, or -1 when the header or property it hashes on is missing. */
  private hashOf(routingKey: string, p: MessageProperties): number {
    if (this.hashHeader !== null) return hashValue(p.headers?.[this.hashHeader]);
    switch (this.hashProperty) {
      case null:
        return hashString(routingKey);
      case "message_id":
        return p.messageId === undefined ? -1 : hashString(p.messageId);
      case "correlation_id":
        return p.correlationId === undefined ? -1 : hashString(p.correlationId);
      case "timestamp":
        return p.timestamp === undefined ? -1 : hashString(String(p.timestamp));
    }
  }
}

function hashValue(v: FieldValue | undefined): number {
  if (v === undefined || v === null) return -1;
  if (typeof v === "string") return hashString(v);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return hashString(String(v));
  if (v instanceof Uint8Array) return hashBytes(v);
  return -1;
}
