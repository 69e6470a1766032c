/**
 * MQTT topics and topic filters, and their mapping onto AMQP topic-exchange routing and binding
 * keys as RabbitMQ's MQTT plugin maps them: `/` ↔ `.`, `+` ↔ `*`, `#` stays `#`. The mapping is
 * character for character (a `.` in an MQTT topic is not escaped, as in RabbitMQ).
 */

/** An MQTT topic (PUBLISH) or topic filter (SUBSCRIBE) as an AMQP routing or binding key. */
export function mqttToAmqp(topic: string): string {
  return topic.replaceAll("/", ".").replaceAll("+", "*");
}

/** An AMQP routing key as the MQTT topic a subscriber sees. */
export function amqpToMqtt(key: string): string {
  return key.replaceAll("*", "+").replaceAll(".", "/");
}

/** A PUBLISH topic: not empty, no wildcard, no NUL (MQTT 3.1.1 §4.7.3, §1.5.3). */
export function isValidTopicName(topic: string): boolean {
  return topic.length > 0 && !topic.includes("+") && !topic.includes("#") && !topic.includes("\u0000");
}

/** A SUBSCRIBE filter: `+` a whole level, `#` a whole last level (MQTT 3.1.1 §4.7.1). */
export function isValidTopicFilter(filter: string): boolean {
  if (filter.length === 0 || filter.includes("\u0000")) return false;
  const levels = filter.split("/");
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    if (level.includes("#") && (level !== "#" || i !== levels.length - 1)) return false;
    if (level.includes("+") && level !== "+") return false;
  }
  return true;
}

/**
 * Whether `topic` matches `filter` by MQTT's rules (§4.7): used for retained messages, which
 * are matched in the MQTT namespace rather than routed. Topics starting with `$` are not matched
 * by a leading wildcard (§4.7.2).
 */
export function topicMatches(filter: string, topic: string): boolean {
  if (topic.startsWith("$") && (filter.startsWith("+") || filter.startsWith("#"))) return false;
  const f = filter.split("/");
  const t = topic.split("/");
  for (let i = 0; i < f.length; i++) {
    const level = f[i]!;
    if (level === "#") return true;
    if (i >= t.length) return false;
    if (level !== "+" && level !== t[i]) return false;
  }
  return f.length === t.length;
}

/**
 * Whether an AMQP topic binding key made from an MQTT filter (`*` one word, `#` the rest, only
 * last) matches a routing key, as the topic exchange routes it: used where a session must know
 * which of its subscriptions a routed message came through.
 */
export function bindingKeyMatches(bindingKey: string, routingKey: string): boolean {
  if (bindingKey === routingKey || bindingKey === "#") return true;
  const b = bindingKey.split(".");
  const r = routingKey.split(".");
  for (let i = 0; i < b.length; i++) {
    const word = b[i]!;
    if (word === "#") return true;
    if (i >= r.length) return false;
    if (word !== "*" && word !== r[i]) return false;
  }
  return b.length === r.length;
}
