/**
 * Durable definitions as one RabbitMQ-format definitions file in the data dir, replaced
 * atomically. Changes are coalesced: the file is rewritten at most once per `delayMs`, so
 * declaring thousands of queues does not rewrite it thousands of times; close() writes any
 * pending change synchronously. A crash can lose at most the changes of the last `delayMs`.
 *
 * A save that fails (a full disk, an I/O error) never throws out of a timer: the old file stays
 * as it was (atomic-file.ts), `failures` is told (the broker raises the disk alarm and logs), and
 * the save is retried every `retryMs` until it succeeds, which clears the alarm again.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DefinitionsSink, Definitions } from "../broker/index.js";
import { writeFileAtomicSync } from "./atomic-file.js";
import { FaultPoints } from "./fault-points.js";

export const DEFINITIONS_FILE = "definitions.json";

/** Told when saving starts failing and when it works again. */
export interface SaveFailures {
  failed(err: unknown): void;
  recovered(): void;
}

export class DefinitionsFile implements DefinitionsSink {
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  /** While restoring from the file itself there is nothing new to write. */
  muted = false;
  writes = 0;
  /** A cluster leader's replication is told each rewrite (null on a single node). */
  onWrite: ((json: string) => void) | null = null;
  /** Saves that failed since the last one that worked. */
  failedSaves = 0;
  failures: SaveFailures | null = null;
  /** Crash-test hook (fault-points.ts); null in normal runs. */
  private readonly faults = FaultPoints.fromEnv();

  constructor(
    private readonly dir: string,
    private readonly snapshot: () => Definitions,
    private readonly delayMs = 50,
    private readonly retryMs = 1000,
  ) {}

  get path(): string {
    return join(this.dir, DEFINITIONS_FILE);
  }

  /** The saved definitions, or null on first boot. */
  read(): Definitions | null {
    // Temporary files of a save interrupted by a crash: the file itself is the old or the new one.
    for (const f of readdirSync(this.dir)) if (f.startsWith(`${DEFINITIONS_FILE}.tmp-`)) rmSync(join(this.dir, f), { force: true });
    if (!existsSync(this.path)) return null;
    return JSON.parse(readFileSync(this.path, "utf8")) as Definitions;
  }

  put(): void {
    this.changed();
  }

  delete(): void {
    this.changed();
  }

  private changed(): void {
    if (this.muted) return;
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.delayMs);
    this.timer.unref();
  }

  /** Saves pending changes now; true when the file holds them (or nothing was pending). Never throws. */
  flush(): boolean {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.dirty) return true;
    const json = JSON.stringify(this.snapshot());
    try {
      writeFileAtomicSync(this.path, json, this.faults === null ? undefined : () => this.faults?.reached("definitions-written"));
    } catch (err) {
      this.failedSaves++;
      this.failures?.failed(err);
      this.timer = setTimeout(() => this.flush(), this.retryMs);
      this.timer.unref();
      return false;
    }
    this.dirty = false;
    this.writes++;
    this.onWrite?.(json);
    if (this.failedSaves > 0) {
      this.failedSaves = 0;
      this.failures?.recovered();
    }
    return true;
  }
}
