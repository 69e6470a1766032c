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
  /** Batches sent, and how many of them a finished barrier covers: equal means nothing to wait for. */
  private sent = 0;
  private covered = 0;

  /** `barrier` (the transport's): resolves once the others applied every batch sent before it. */
  constructor(
    private readonly send: (batch: readonly MirroredChange[]) => void,
    private readonly barrier: (() => Promise<void>) | null = null,
  ) {}

  /**
   * Resolves once the others applied every batch sent so far. When a finished barrier already
   * covers them all (a re-declare that changed nothing, an HTTP call that failed), no request
   * leaves: the answer is not delayed by a round trip that proves nothing.
   */
  settled(): Promise<void> {
    this.flush();
    const upTo = this.sent;
    if (this.barrier === null || upTo === this.covered) return Promise.resolve();
    return this.barrier().then(() => {
      if (upTo > this.covered) this.covered = upTo;
    });
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
    this.sent++;
    this.send(batch);
  }

  private add(change: MirroredChange): void {
    this.batch.push(change);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }
}
