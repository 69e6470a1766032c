/**
 * A link's life: start it, notice when it goes down (an endpoint's onDown, or a start that
 * fails), record why and when, and start it again after a back-off delay — until stopped. A
 * delay of null means "do not restart" (a shovel's reconnect-delay 0): the link stays down.
 * Shovels and federation put their own work in `run`; this module owns only the timing and the
 * recorded state, which the API shows.
 */

export type LinkState = "starting" | "running" | "down" | "stopped";

export interface BackoffPolicy {
  /** First delay, ms; null: never restart after going down. */
  readonly initialMs: number | null;
  /** The delay grows by `factor` per failed attempt up to `maxMs`; a run that came up resets it. */
  readonly maxMs: number;
  readonly factor: number;
}

/** A fixed delay (RabbitMQ's shovel reconnect-delay, seconds; 0 = never). */
export function fixedDelay(seconds: number): BackoffPolicy {
  return seconds > 0 ? { initialMs: seconds * 1000, maxMs: seconds * 1000, factor: 1 } : { initialMs: null, maxMs: 0, factor: 1 };
}

/**
 * What a run is given: `up()` once it is established, `down(reason)` when it fails later (also
 * fine to throw from run before up). `closing` is true once the loop is stopping it.
 */
export interface RunControl {
  up(): void;
  down(reason: string): void;
}

/** Starts the link's work; resolves to what stops it (closes its endpoints). */
export type LinkRun = (control: RunControl) => Promise<() => Promise<void>>;

export class LinkLoop {
  state: LinkState = "starting";
  /** Why it is down (or was, last); null while it never failed. */
  reason: string | null = null;
  /** When the state last changed (ms since epoch). */
  since = Date.now();
  /** Failed starts and losses since it last came up. */
  failures = 0;
  /** Called on every state change (metrics, logs). */
  onChange: ((loop: LinkLoop) => void) | null = null;
  private stopCurrent: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private generation = 0;

  constructor(private readonly run: LinkRun, private readonly policy: BackoffPolicy) {}

  start(): void {
    if (this.state === "running") return;
    this.attempt();
  }

  /** Stops it for good (until start() again): closes the current run, cancels a pending retry. */
  async stop(): Promise<void> {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const stop = this.stopCurrent;
    this.stopCurrent = null;
    this.set("stopped", this.reason);
    if (stop) await stop().catch(() => {});
  }

  /** Stops and starts again at once (DELETE /api/shovels/.../restart). */
  async restart(): Promise<void> {
    await this.stop();
    this.failures = 0;
    this.attempt();
  }

  private set(state: LinkState, reason: string | null): void {
    this.state = state;
    this.reason = reason;
    this.since = Date.now();
    this.onChange?.(this);
  }

  private attempt(): void {
    const gen = ++this.generation;
    this.timer = null;
    this.set("starting", this.reason);
    let settled = false;
    const control: RunControl = {
      up: () => {
        if (gen !== this.generation) return;
        this.failures = 0;
        this.set("running", null);
      },
      down: (reason) => {
        if (gen !== this.generation || settled) return;
        settled = true;
        void this.lost(gen, reason);
      },
    };
    this.run(control).then(
      (stop) => {
        if (gen !== this.generation || settled) {
          void stop().catch(() => {});
          return;
        }
        this.stopCurrent = stop;
      },
      (err: unknown) => {
        if (gen !== this.generation || settled) return;
        settled = true;
        void this.lost(gen, err instanceof Error ? err.message : String(err));
      },
    );
  }

  private async lost(gen: number, reason: string): Promise<void> {
    const stop = this.stopCurrent;
    this.stopCurrent = null;
    this.failures++;
    this.set("down", reason);
    if (stop) await stop().catch(() => {});
    if (gen !== this.generation || this.policy.initialMs === null) return;
    const delay = Math.min(this.policy.maxMs, this.policy.initialMs * this.policy.factor ** Math.max(0, this.failures - 1));
    this.timer = setTimeout(() => {
      if (gen === this.generation) this.attempt();
    }, delay);
    this.timer.unref?.();
  }
}
