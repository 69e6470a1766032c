/**
 * The QoS 2 packet-identifier state of every MQTT session on this node (MQTT 3.1.1 §4.3.3,
 * MQTT 5 §4.3.3), kept per vhost and client id:
 * - inbound: packet ids of PUBLISH packets the client sent at QoS 2 whose PUBREC went out and
 *   whose PUBREL has not come. A PUBLISH with such an id is a resend and is not routed again
 *   [MQTT-4.3.3-9]; PUBREL frees the id.
 * - outbound: packet ids of QoS 2 deliveries whose PUBREC came and PUBREL went out, awaiting
 *   PUBCOMP. A resumed session sends those PUBRELs again [MQTT-4.4.0-1].
 * - resend: QoS 2 deliveries whose connection went before their PUBREC came, requeued in their
 *   session queue, with the packet id they were sent with: when the queue hands the same entry
 *   out again, it goes with that id and DUP [MQTT-4.4.0-1], so a client that had it
 *   already recognises it. Kept in memory only (queue entries are objects of this process).
 *
 * A persistent session's state is saved in one JSON file under the data dir, so a restart loses
 * and duplicates nothing whose PUBREC was sent: the publisher sends PUBREC only once the save it
 * asked for is on disk (`afterSave`). Writes are coalesced per event-loop turn and atomic (write,
 * fsync, rename). A clean session's state is only in memory. On a cluster leader the file goes to
 * the followers too, and `afterSave` waits until a store batch begun after it is acknowledged by
 * them, so the node that takes over after a failover holds every id whose PUBREC or PUBREL went.
 */
import type { QueueEntry } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { SavedJsonFile, type ReplicatedFiles } from "./saved-json-file.js";

export interface Qos2State {
  readonly inbound: Set<number>;
  readonly outbound: Set<number>;
  /** Requeued QoS 2 deliveries → the packet id they keep. */
  readonly resend: Map<QueueEntry, number>;
  /** The ids in `resend`: not given to other deliveries. */
  readonly reserved: Set<number>;
  /** Saved to disk (a persistent session). */
  durable: boolean;
}

interface StateJson {
  readonly inbound: number[];
  readonly outbound: number[];
}

export class Qos2StateStore {
  private readonly sessions = new Map<string, Qos2State>();
  private waiting: Array<() => void> = [];
  private readonly file: SavedJsonFile;

  constructor(dataDir: string | null, private readonly log: Logger, private readonly replicated: ReplicatedFiles | null = null) {
    this.file = new SavedJsonFile(dataDir, "mqtt-qos2-state.json", "MQTT QoS 2 session state", log, () => this.serialize(), () => this.written(), replicated);
    this.load();
  }

  /** The state of a session (created empty); `durable` says whether it is saved. */
  of(vhost: string, clientId: string, durable: boolean): Qos2State {
    const key = `${vhost}\u0000${clientId}`;
    let s = this.sessions.get(key);
    if (s === undefined) this.sessions.set(key, (s = emptyState(durable)));
    else if (s.durable !== durable) {
      s.durable = durable;
      this.file.schedule();
    }
    return s;
  }

  /** A session ended or started clean: its state goes. */
  drop(vhost: string, clientId: string): void {
    const key = `${vhost}\u0000${clientId}`;
    const s = this.sessions.get(key);
    if (s === undefined) return;
    this.sessions.delete(key);
    if (s.durable) this.file.schedule();
  }

  /** `s` changed: saved when durable; `done` runs once the change is on disk (at once when not durable). */
  changed(s: Qos2State, done: (() => void) | null): void {
    if (!s.durable || this.file.path === null) {
      if (done !== null) done();
      return;
    }
    if (done !== null) this.waiting.push(done);
    this.file.schedule();
  }

  flush(): void {
    this.file.flush();
  }

  private serialize(): string {
    const json: Record<string, StateJson> = {};
    for (const [key, s] of this.sessions) {
      if (s.durable && (s.inbound.size > 0 || s.outbound.size > 0)) json[key] = { inbound: [...s.inbound], outbound: [...s.outbound] };
    }
    return JSON.stringify({ version: 1, sessions: json });
  }

  /** After a write (even a failed one: the message is routed and stored, the acknowledgement goes). */
  private written(): void {
    const waiting = this.waiting;
    this.waiting = [];
    const release = (): void => {
      for (const w of waiting) w();
    };
    // A leader that loses its lease meanwhile never tells: the client sends again to the next leader.
    if (this.replicated !== null && waiting.length > 0) this.replicated.journal.whenSynced({ synced: release }, 0);
    else release();
  }

  private load(): void {
    const text = this.file.read();
    if (text === null) return;
    try {
      const parsed = JSON.parse(text) as { sessions: Record<string, StateJson> };
      for (const [key, s] of Object.entries(parsed.sessions)) {
        this.sessions.set(key, { ...emptyState(true), inbound: new Set(s.inbound.filter(isPacketId)), outbound: new Set(s.outbound.filter(isPacketId)) });
      }
    } catch (err) {
      this.log.error("MQTT QoS 2 session state file is unreadable; starting without it", { err, file: this.file.path });
    }
  }
}

function isPacketId(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n) && n > 0 && n <= 0xffff;
}

function emptyState(durable: boolean): Qos2State {
  return { inbound: new Set(), outbound: new Set(), resend: new Map(), reserved: new Set(), durable };
}

/**
 * Entries that never came back (expired or purged in their queue) would keep their ids: past this
 * many the oldest reservation goes. Far above any prefetch, far below the 65,535 ids.
 */
const MAX_RESERVED = 4096;

/** A QoS 2 delivery sent with `id` and not received goes back to its queue: it keeps `id`. */
export function reserveResend(s: Qos2State, entry: QueueEntry, id: number): void {
  if (s.resend.size >= MAX_RESERVED) {
    const [oldest, oldId] = s.resend.entries().next().value as [QueueEntry, number];
    s.resend.delete(oldest);
    s.reserved.delete(oldId);
  }
  s.resend.set(entry, id);
  s.reserved.add(id);
}

/** The id a redelivered entry keeps (its reservation ends); 0 when it has none. */
export function takeResend(s: Qos2State, entry: QueueEntry): number {
  const id = s.resend.get(entry);
  if (id === undefined) return 0;
  s.resend.delete(entry);
  s.reserved.delete(id);
  return id;
}
