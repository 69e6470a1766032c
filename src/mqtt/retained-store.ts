/**
 * Retained messages, one per topic per vhost (MQTT 3.1.1 §3.3.1.3), kept in one JSON file under
 * the data dir so they survive a restart. A retained PUBLISH with an empty payload clears its
 * topic. Writes are coalesced: changes made in one event-loop turn are written once, atomically
 * (write, fsync, rename), so the file always holds a whole earlier or later state; `flush` writes
 * at once (shutdown). A message whose TTL has passed is dropped when it is looked up. A node that
 * stores nothing (`inMemory`) has no file: its retained messages last as long as the process.
 */
import type { QoS } from "mqtt-packet";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Logger } from "../logging/logger.js";
import { SavedJsonFile, type ReplicatedFiles } from "./saved-json-file.js";
import { topicMatches } from "./mqtt-topic.js";

export interface RetainedMessage {
  readonly topic: string;
  readonly qos: QoS;
  readonly payload: Buffer;
  readonly properties: MessageProperties;
  /** ms since epoch, for the remaining TTL */
  readonly publishedAt: number;
}

export class RetainedStore {
  private readonly byVhost = new Map<string, Map<string, RetainedMessage>>();
  private readonly file: SavedJsonFile;
  /**
   * Told of each change a client made here (never of one applied from a peer, so nothing echoes):
   * `coney --workers N` relays it to the other workers (src/workers/retained-relay.ts), so a
   * subscriber on any worker gets what was retained through any other.
   */
  onChange: ((change: string) => void) | null = null;

  constructor(dataDir: string | null, private readonly log: Logger, replicated: ReplicatedFiles | null = null) {
    this.file = new SavedJsonFile(dataDir, "mqtt-retained.json", "MQTT retained messages", log, () => this.serialize(), undefined, replicated);
    this.load();
  }

  /** The file, null when nothing is stored. */
  get path(): string | null {
    return this.file.path;
  }

  /** Forgets every retained message (a test broker's reset). */
  clear(): void {
    if (this.byVhost.size === 0) return;
    this.byVhost.clear();
    this.file.schedule();
  }

  /** Stores `m` for its topic, or clears the topic when the payload is empty. */
  retain(vhost: string, m: RetainedMessage): void {
    this.store(vhost, m);
    this.onChange?.(JSON.stringify({ vhost, message: toJson(m) }));
  }

  /** A change made on a peer (`onChange`'s text there). */
  applyChange(change: string): void {
    const { vhost, message } = JSON.parse(change, reviveBuffers) as { vhost: string; message: RetainedJson };
    this.store(vhost, fromJson(message));
  }

  /** Every retained message, as `followSnapshot` takes it (a worker that starts while others run). */
  snapshot(): string {
    return this.serialize();
  }

  /** Becomes the same as a peer's `snapshot`: what it lacks is added, what the peer lacks goes. */
  followSnapshot(snapshot: string): void {
    this.byVhost.clear();
    this.parse(snapshot);
    this.file.schedule();
  }

  private store(vhost: string, m: RetainedMessage): void {
    let topics = this.byVhost.get(vhost);
    if (m.payload.length === 0) {
      if (!topics?.delete(m.topic)) return;
    } else {
      if (!topics) this.byVhost.set(vhost, (topics = new Map()));
      topics.set(m.topic, m);
    }
    this.file.schedule();
  }

  /** The retained messages whose topic matches `filter`, oldest first. */
  matching(vhost: string, filter: string, now: number): RetainedMessage[] {
    const topics = this.byVhost.get(vhost);
    if (!topics) return [];
    const out: RetainedMessage[] = [];
    for (const m of topics.values()) {
      if (!topicMatches(filter, m.topic)) continue;
      const ttl = m.properties.expiration === undefined ? NaN : Number(m.properties.expiration);
      if (Number.isFinite(ttl) && m.publishedAt + ttl < now) {
        topics.delete(m.topic);
        this.file.schedule();
        continue;
      }
      out.push(m);
    }
    return out;
  }

  count(vhost: string): number {
    return this.byVhost.get(vhost)?.size ?? 0;
  }

  /** Writes pending changes now. */
  flush(): void {
    this.file.flush();
  }

  private serialize(): string {
    const json: Record<string, unknown[]> = {};
    for (const [vhost, topics] of this.byVhost) {
      if (topics.size > 0) json[vhost] = [...topics.values()].map(toJson);
    }
    return JSON.stringify({ version: 1, vhosts: json });
  }

  private parse(text: string): void {
    const parsed = JSON.parse(text, reviveBuffers) as { vhosts: Record<string, RetainedJson[]> };
    for (const [vhost, list] of Object.entries(parsed.vhosts)) {
      const topics = new Map<string, RetainedMessage>();
      for (const r of list) topics.set(r.topic, fromJson(r));
      this.byVhost.set(vhost, topics);
    }
  }

  private load(): void {
    const text = this.file.read();
    if (text === null) return;
    try {
      this.parse(text);
    } catch (err) {
      this.log.error("MQTT retained messages file is unreadable; starting without retained messages", { err, file: this.path });
    }
  }
}

interface RetainedJson {
  topic: string;
  qos: QoS;
  payload: string;
  properties: MessageProperties;
  publishedAt: number;
}

function toJson(m: RetainedMessage): RetainedJson {
  return { topic: m.topic, qos: m.qos, payload: m.payload.toString("base64"), properties: m.properties, publishedAt: m.publishedAt };
}

function fromJson(r: RetainedJson): RetainedMessage {
  return { topic: r.topic, qos: r.qos, payload: Buffer.from(r.payload, "base64"), properties: r.properties, publishedAt: r.publishedAt };
}

/** Buffers in headers (x-correlation-id) are written by Buffer.toJSON as { type: "Buffer", data }. */
function reviveBuffers(_key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null && (value as { type?: unknown }).type === "Buffer" && Array.isArray((value as { data?: unknown }).data)) {
    return Buffer.from((value as { data: number[] }).data);
  }
  return value;
}
