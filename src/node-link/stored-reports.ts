/**
 * The leading node's side of STORED/REFUSED: positions are counted as PUBLISH frames arrive; the
 * frames of one socket read form a run, which is stored once the local store has synced it (when
 * it appended anything) and at once otherwise. STORED reports the highest position below which
 * every run is stored — in order, so a run waiting for its fsync holds back the report of a later
 * run that needed none. A message a queue refused (reject-publish at its length limit) is reported
 * REFUSED at once, before the STORED that covers it; a failed store write refuses its whole run.
 */
import type { SyncWaiter } from "../broker/index.js";
import { FRAME_HEAD, REFUSED, STORED, frame } from "./link-frames.js";

interface Run {
  from: number;
  through: number;
  done: boolean;
}

export class StoredReports implements SyncWaiter {
  /** Positions received so far. */
  received = 0;
  private closedThrough = 0;
  private appended = false;
  private readonly runs: Run[] = [];
  private head = 0;
  private reportedThrough = 0;

  constructor(
    private readonly send: (f: Buffer) => void,
    /** The broker's wait for the store (Broker.whenStored), or null when nothing is stored. */
    private readonly waitForStore: ((waiter: SyncWaiter, token: number) => void) | null,
  ) {}

  /** One more message arrived; `appended`: the store wrote it. */
  accepted(appended: boolean): void {
    this.received++;
    if (appended) this.appended = true;
  }

  refused(): void {
    this.received++;
    this.send(refusedFrame(this.received, this.received));
  }

  /** The read is done: its messages form a run. */
  closeRun(): void {
    if (this.received === this.closedThrough) return;
    const run: Run = { from: this.closedThrough + 1, through: this.received, done: true };
    this.closedThrough = this.received;
    this.runs.push(run);
    if (this.appended && this.waitForStore !== null) {
      run.done = false;
      this.waitForStore(this, run.through);
    }
    this.appended = false;
    this.advance();
  }

  synced(token: number, ok: boolean): void {
    for (let i = this.head; i < this.runs.length; i++) {
      const run = this.runs[i]!;
      if (run.through !== token || run.done) continue;
      if (!ok) this.send(refusedFrame(run.from, run.through));
      run.done = true;
      break;
    }
    this.advance();
  }

  private advance(): void {
    let through = 0;
    const runs = this.runs;
    while (this.head < runs.length && runs[this.head]!.done) through = runs[this.head++]!.through;
    if (this.head === runs.length) {
      runs.length = 0;
      this.head = 0;
    }
    if (through > this.reportedThrough) {
      this.reportedThrough = through;
      const f = frame(STORED, 8);
      f.writeDoubleLE(through, FRAME_HEAD);
      this.send(f);
    }
  }
}

function refusedFrame(from: number, to: number): Buffer {
  const f = frame(REFUSED, 16);
  f.writeDoubleLE(from, FRAME_HEAD);
  f.writeDoubleLE(to, FRAME_HEAD + 8);
  return f;
}
