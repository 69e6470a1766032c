/**
 * MQTT 5 topic aliases (§3.3.2.3.4), both ways, as RabbitMQ's MQTT plugin handles them.
 *
 * Inbound: the server announces a Topic Alias Maximum in CONNACK (mqtt.topic_alias_maximum, 16);
 * a PUBLISH may carry an alias from 1 to that maximum, with a topic to set it or an empty topic to
 * use it. An alias of 0, one above the maximum, or an empty topic with an alias never set is a
 * protocol error (DISCONNECT 0x94 Topic Alias Invalid, or 0x82 for an empty topic without alias).
 *
 * Outbound: a client that announces its own Topic Alias Maximum gets aliases on deliveries: the
 * first PUBLISH of a topic sets the next free alias, later ones send it with an empty topic. The
 * aliases are given out in order until the client's maximum (capped by the server's) is used up;
 * topics after that go by name. A client that announces none (0) costs one comparison per message.
 */

/** What resolving an inbound PUBLISH's alias gives: the topic, or why the packet is refused. */
export type InboundAlias = { readonly ok: true; readonly topic: string } | { readonly ok: false; readonly why: string; readonly invalidAlias: boolean };

export class TopicAliases {
  /** Inbound: alias → topic (index 0 unused). */
  private inbound: string[] | null = null;
  /** Outbound: topic → alias; null while the client takes none. */
  private readonly outbound: Map<string, number> | null;

  constructor(
    /** The most aliases the client may set (what CONNACK announced). */
    private readonly inboundMaximum: number,
    /** The most aliases the server sets: min(the client's Topic Alias Maximum, the server's). */
    private readonly outboundMaximum: number,
  ) {
    this.outbound = outboundMaximum > 0 ? new Map() : null;
  }

  /** The topic of an inbound PUBLISH whose properties carry `alias` (undefined: none). */
  resolve(topic: string, alias: number | undefined): InboundAlias {
    if (alias === undefined) {
      return topic.length > 0 ? { ok: true, topic } : { ok: false, why: "PUBLISH with an empty topic and no topic alias", invalidAlias: false };
    }
    if (alias < 1 || alias > this.inboundMaximum) return { ok: false, why: `topic alias ${alias} outside 1..${this.inboundMaximum}`, invalidAlias: true };
    if (topic.length > 0) {
      (this.inbound ??= [])[alias] = topic;
      return { ok: true, topic };
    }
    const known = this.inbound?.[alias];
    return known !== undefined ? { ok: true, topic: known } : { ok: false, why: `unknown topic alias ${alias}`, invalidAlias: true };
  }

  /**
   * For an outbound PUBLISH of `topic`: 0 to send the topic without alias, a positive alias to send
   * with the topic (it sets the alias), a negative one (-alias) to send with an empty topic. A
   * number rather than an object: this runs per delivery.
   */
  outboundAlias(topic: string): number {
    const map = this.outbound;
    if (map === null) return 0;
    const known = map.get(topic);
    if (known !== undefined) return -known;
    // An alias costs three bytes (property id and two-byte value): not worth it for a one-byte topic.
    if (map.size >= this.outboundMaximum || topic.length <= 1) return 0;
    const alias = map.size + 1;
    map.set(topic, alias);
    return alias;
  }

  /** The PUBLISH that was to set `topic`'s alias was not sent (too large for the client): forget it. */
  unsent(topic: string): void {
    // Aliases are map.size + 1 in order, so the one just given is the last and can be given again.
    this.outbound?.delete(topic);
  }
}
