/** Topic exchange: binding keys with "*" and "#" wildcards, matched through a trie (topic-trie.ts). */
import type { MessageProperties } from "../values/message-properties.js";
import { Exchange, type Destination, type ExchangeBinding } from "./exchange.js";
import { TopicTrie } from "./topic-trie.js";

export class TopicExchange extends Exchange {
  readonly type = "topic";
  private readonly trie = new TopicTrie<Destination>();

  protected addRoute(b: ExchangeBinding): void {
    this.trie.add(b.routingKey, b.destination);
  }

  protected removeRoute(b: ExchangeBinding): void {
    this.trie.remove(b.routingKey, b.destination);
  }

  route(routingKey: string, _properties: MessageProperties, out: Destination[]): void {
    this.trie.match(routingKey, (d) => out.push(d));
  }
}
