/**
 * A TopologyMirror that gathers the changes of one event-loop turn and hands them on as one batch,
 * in the order they were made: a definitions import or a vhost's deletion of a thousand objects
 * crosses to the other nodes in one message, not a thousand. `send` is the transport's (the
 * workers' IPC, a cluster link); the records are plain JSON, so any transport carries them.
 */
import type { DefinitionKind } from "./definitions-sink.js";
import type { MirroredChange, MirroredRecord, TopologyMirror } from "./topology-mirror.js";

export class MirrorOutbox implements TopologyMirror {
  private batch: MirroredChange[] = [];
  private scheduled = false;

  /** `barrier` (the transport's): resolves once the others applied every batch sent before it. */
  constructor(
    private readonly send: (batch: readonly MirroredChange[]) => void,
    private readonly barrier: (() => Promise<void>) | null = null,
  ) {}

  settled(): Promise<void> {
    this.flush();
    return this.barrier === null ? Promise.resolve() : this.barrier();
  }

  put(kind: DefinitionKind, record: MirroredRecord): void {
    this.add({ kind, op: "put", record });
  }

  delete(kind: DefinitionKind, record: MirroredRecord): void {
    this.add({ kind, op: "delete", record });
  }

  /** Sends what is gathered now (before a node closes, or when a caller must know it left). */
  flush(): void {
    this.scheduled = false;
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.send(batch);
  }

  private add(change: MirroredChange): void {
    this.batch.push(change);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }
}
