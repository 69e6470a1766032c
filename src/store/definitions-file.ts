/**
 * Durable definitions as one RabbitMQ-format definitions file in the data dir, replaced
 * atomically. Changes are coalesced: the file is rewritten at most once per `delayMs`, so
 * declaring thousands of queues does not rewrite it thousands of times; close() writes any
 * pending change synchronously. A crash can lose at most the changes of the last `delayMs`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DefinitionsSink } from "../broker/definitions-sink.js";
import type { Definitions } from "../broker/definitions.js";
import { writeFileAtomicSync } from "./atomic-file.js";

export const DEFINITIONS_FILE = "definitions.json";

export class DefinitionsFile implements DefinitionsSink {
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  /** While restoring from the file itself there is nothing new to write. */
  muted = false;
  writes = 0;
  /** A cluster leader's replication is told each rewrite (null on a single node). */
  onWrite: ((json: string) => void) | null = null;

  constructor(
    private readonly dir: string,
    private readonly snapshot: () => Definitions,
    private readonly delayMs = 50,
  ) {}

  get path(): string {
    return join(this.dir, DEFINITIONS_FILE);
  }

  /** The saved definitions, or null on first boot. */
  read(): Definitions | null {
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

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.dirty) return;
    this.dirty = false;
    const json = JSON.stringify(this.snapshot());
    writeFileAtomicSync(this.path, json);
    this.writes++;
    this.onWrite?.(json);
  }
}
