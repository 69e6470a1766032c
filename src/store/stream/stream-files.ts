/**
 * The message store's streams (docs/STREAMS.md): each stream's chunk log under
 * `<data dir>/streams/<hash>/`, opened when its queue is declared or restored, and the batch
 * hooks — `seal` turns what each stream got since the last batch into chunks, the batch then
 * flushes them with its segments. In a cluster streams are refused (`unavailable`): their files
 * are not replicated yet, so a confirmed message could be lost in a failover.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { BrokerError } from "../../errors/broker-error.js";
import { ChunkLog } from "./chunk-log.js";
import { StoredStreamLog } from "./stored-stream-log.js";

export class StreamFiles {
  /** Why streams cannot be kept here (a cluster node); null: they can. */
  unavailable: string | null = null;
  private readonly open = new Set<StoredStreamLog>();
  private readonly dirty = new Set<StoredStreamLog>();

  constructor(
    private readonly dir: string,
    /** A stream got its first message since the last batch: count an append and schedule a flush. */
    private readonly appended: () => void,
  ) {}

  get hasDirty(): boolean {
    return this.dirty.size > 0;
  }

  forStream(vhost: string, name: string, segmentBytes: number): StoredStreamLog {
    if (this.unavailable !== null) throw new BrokerError("preconditionFailed", this.unavailable);
    // A hash names the directory: vhost and queue names may hold any character.
    const id = createHash("sha256").update(`${vhost}\u0000${name}`).digest("hex").slice(0, 32);
    const dir = join(this.dir, id);
    const chunks = ChunkLog.open({ dir, maxSegmentBytes: segmentBytes });
    const log = new StoredStreamLog(
      chunks,
      (l) => {
        this.dirty.add(l);
        this.appended();
      },
      (l) => {
        this.open.delete(l);
        this.dirty.delete(l);
      },
      Date.now,
      join(dir, "tracking.json"),
    );
    this.open.add(log);
    return log;
  }

  /** At a batch's start: every stream appended to becomes chunks; returns the logs the batch flushes. */
  seal(): StoredStreamLog[] {
    const logs = [...this.dirty];
    this.dirty.clear();
    for (const l of logs) l.seal();
    return logs;
  }

  close(): void {
    for (const l of this.open) l.close();
  }
}
