/**
 * Fault points for crash tests: named places in the store's life where a test wants the broker
 * to die (SIGKILL, as a power cut would) or freeze (SIGSTOP, so the test can look and then kill).
 * Configured by CONEY_FAULT_POINT="<point>:<kill|stop>[:<n>]" (the n-th time the point is reached,
 * default 1), read once when the store is built; unset, every point is one null check, and
 * points sit on per-batch or per-file paths only, never per message.
 */
export type FaultPointName =
  /** A group commit's records are written and fsynced; no publisher has been told yet. */
  | "commit-synced"
  /** As commit-synced, for a commit the cap cut short (commit-cap.ts): newer records still wait. */
  | "commit-capped"
  /** As commit-synced, for a commit that stopped at a record held for its ack (delivery-hold.ts). */
  | "commit-held"
  /** A new segment file was created; nothing is written to it yet. */
  | "segment-rolled"
  /** Online compaction's copies are fsynced; the old segment still holds the originals. */
  | "compaction-synced"
  /** A definitions save's temporary file is written and fsynced, not yet renamed over the old file. */
  | "definitions-written";

export class FaultPoints {
  private hits = 0;

  private constructor(
    private readonly point: string,
    private readonly signal: NodeJS.Signals,
    private readonly nth: number,
  ) {}

  /** The configured fault point, or null (the normal case). */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): FaultPoints | null {
    const spec = env["CONEY_FAULT_POINT"];
    if (!spec) return null;
    const [point = "", action = "kill", nth = "1"] = spec.split(":");
    return new FaultPoints(point, action === "stop" ? "SIGSTOP" : "SIGKILL", Math.max(1, Number(nth) || 1));
  }

  reached(name: FaultPointName): void {
    if (name !== this.point || ++this.hits !== this.nth) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: "warn", msg: "fault point reached", point: name })}\n`);
    process.kill(process.pid, this.signal);
  }
}
