/**
 * One JSON file of MQTT node state under the data dir (retained messages, QoS 2 session state):
 * read once at start, written atomically (write, fsync, rename) so it always holds a whole
 * earlier or later state. Changes made in one event-loop turn are written once (`schedule`);
 * `flush` writes at once (shutdown). With no data dir there is no file. On a cluster leader each
 * write is also sent whole to the followers (`replicated`), in order with the store's frames.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logging/logger.js";
import type { QueueJournal } from "../broker/index.js";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import type { NodeFileTap } from "../store/store-replica.js";

/** A cluster leader's replication of the node's files (src/cluster), and its message store. */
export interface ReplicatedFiles {
  readonly tap: NodeFileTap;
  /** A store batch begun after a file was sent is acknowledged by followers only once they wrote that file. */
  readonly journal: QueueJournal;
}

export class SavedJsonFile {
  private scheduled = false;
  /** The file, null when nothing is stored. */
  readonly path: string | null;

  constructor(
    dataDir: string | null,
    private readonly file: string,
    /** What the file is, for log lines. */
    private readonly what: string,
    private readonly log: Logger,
    /** The state to write, as JSON text. */
    private readonly serialize: () => string,
    /** After each write attempt (successful or not). */
    private readonly written: () => void = () => {},
    private readonly replicated: ReplicatedFiles | null = null,
  ) {
    this.path = dataDir === null ? null : join(dataDir, file);
  }

  /** The file's text, null when there is none or it cannot be read. */
  read(): string | null {
    if (this.path === null || !existsSync(this.path)) return null;
    try {
      return readFileSync(this.path, "utf8");
    } catch (err) {
      this.log.error(`${this.what} could not be read; starting without`, { err, file: this.path });
      return null;
    }
  }

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      if (this.scheduled) this.flush();
    });
  }

  flush(): void {
    this.scheduled = false;
    if (this.path !== null) {
      try {
        const text = this.serialize();
        writeFileAtomicSync(this.path, text);
        this.replicated?.tap.nodeFileReplaced(this.file, Buffer.from(text, "utf8"));
      } catch (err) {
        // The previous file stays whole; the next change tries again.
        this.log.error(`${this.what} could not be saved`, { err, file: this.path });
      }
    }
    this.written();
  }
}
