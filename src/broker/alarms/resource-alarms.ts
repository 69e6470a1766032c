/**
 * Memory and disk alarms, as RabbitMQ's rabbit_alarm: polled every `intervalMs`, the memory
 * alarm is on while this process's RSS is above `memHighWatermark` × total memory, the disk alarm
 * while the data dir's file system has fewer than `diskFreeLimit` free bytes. While any alarm is
 * on, a connection that publishes is blocked (it sends connection.blocked and stops reading, see
 * AmqpConnection); when every alarm clears, each blocked connection is released.
 * No transport here: connections register themselves as Blockable.
 *
 * A write that fails for lack of space (a definitions save) raises the disk alarm too, whatever
 * the free-space figure says (`--disk-free-limit 0`, or a disk filled faster than the poll): the
 * writer reports `diskWriteFailed` and `diskWriteRecovered` once its retry succeeds.
 */
import { readdirSync, readFileSync, statfsSync } from "node:fs";
import { totalmem } from "node:os";
import { dirname, resolve } from "node:path";

export interface AlarmLimits {
  memHighWatermark: number;
  diskFreeLimit: number;
}

export interface AlarmFigures {
  readonly memUsed: number;
  readonly memLimit: number;
  readonly memAlarm: boolean;
  readonly diskFree: number;
  readonly diskFreeLimit: number;
  readonly diskAlarm: boolean;
}

/** A connection that was blocked by an alarm and waits for it to clear. */
export interface Blockable {
  unblock(): void;
}

/** How figures are read; tests of pure logic may pass their own. */
export interface ResourceProbe {
  rss(): number;
  totalMemory(): number;
  diskFree(dir: string): number;
  /** The process's descriptor limit and how many it has open; null where unknown (no limit applied). */
  fdLimit?(): number | null;
  fdOpen?(): number | null;
}

/** Descriptors kept back from AMQP sockets for files and HTTP (see the header). */
export const SOCKET_RESERVE_FDS = 32;

export const processProbe: ResourceProbe = {
  rss: () => process.memoryUsage.rss(),
  totalMemory: () => totalmem(),
  diskFree: (dir) => {
    // A data dir not made yet (a first start; a worker's own folder before its store opens) is on
    // its nearest existing parent's file system: measured there, not taken as a full disk.
    for (let d = resolve(dir); ; ) {
      try {
        const s = statfsSync(d);
        return s.bavail * s.bsize;
      } catch (err) {
        const up = dirname(d);
        if ((err as NodeJS.ErrnoException).code !== "ENOENT" || up === d) throw err;
        d = up;
      }
    }
  },
  fdLimit: () => {
    try {
      const m = /Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"));
      return m ? Number(m[1]) : null;
    } catch {
      return null;
    }
  },
  fdOpen: () => {
    try {
      return readdirSync("/proc/self/fd").length;
    } catch {
      return null;
    }
  },
};

export class ResourceAlarms {
  /** RabbitMQ's connection.blocked reason while an alarm is on, null when clear. Read on every publish. */
  reason: string | null = null;
  private figuresNow: AlarmFigures;
  private readonly blocked = new Set<Blockable>();
  /** Writers whose last write failed (see the header). */
  private readonly failedWriters = new Set<string>();
  /** AMQP sockets allowed (see the header); Infinity where the descriptor limit is unknown. */
  readonly socketLimit: number;
  /** AMQP sockets open now, handshaking ones included (the listeners count them). */
  socketsUsed = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private limits: AlarmLimits,
    /**
     * The file system whose free space the disk alarm watches; null for a broker that stores
     * nothing (`inMemory`): its free space is still read, at the working directory, for the
     * figures, but a full disk cannot stop a broker that never writes to it.
     */
    private readonly dataDir: string | null,
    private readonly probe: ResourceProbe = processProbe,
  ) {
    this.figuresNow = this.measure();
    this.apply();
    const limit = probe.fdLimit?.() ?? null;
    const open = probe.fdOpen?.() ?? null;
    this.socketLimit = limit === null || open === null ? Infinity : Math.max(0, limit - open - SOCKET_RESERVE_FDS);
  }

  get figures(): AlarmFigures {
    return this.figuresNow;
  }

  /** Starts polling; the timer does not keep the process alive. */
  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(() => this.check(), Math.max(10, intervalMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Changes the thresholds at run time (RabbitMQ's set_vm_memory_high_watermark / set_disk_free_limit) and re-checks. */
  setLimits(limits: Partial<AlarmLimits>): void {
    this.limits = { ...this.limits, ...limits };
    this.check();
  }

  check(): void {
    this.figuresNow = this.measure();
    this.apply();
  }

  /** `writer` could not write to the data dir: the disk alarm is on until it reports recovery. */
  diskWriteFailed(writer: string): void {
    if (this.failedWriters.has(writer)) return;
    this.failedWriters.add(writer);
    this.check();
  }

  diskWriteRecovered(writer: string): void {
    if (this.failedWriters.delete(writer)) this.check();
  }

  /** Called by a connection that has just been blocked; released when the alarms clear. */
  hold(c: Blockable): void {
    this.blocked.add(c);
  }

  release(c: Blockable): void {
    this.blocked.delete(c);
  }

  private measure(): AlarmFigures {
    const memUsed = this.probe.rss();
    const memLimit = Math.floor(this.probe.totalMemory() * this.limits.memHighWatermark);
    let diskFree = 0;
    try {
      diskFree = this.probe.diskFree(this.dataDir ?? ".");
    } catch {
      diskFree = 0; // an unreadable data dir is as good as a full one
    }
    return {
      memUsed,
      memLimit,
      memAlarm: memUsed > memLimit,
      diskFree,
      diskFreeLimit: this.limits.diskFreeLimit,
      diskAlarm: (this.dataDir !== null && diskFree < this.limits.diskFreeLimit) || this.failedWriters.size > 0,
    };
  }

  private apply(): void {
    const f = this.figuresNow;
    const reasons = [...(f.memAlarm ? ["memory"] : []), ...(f.diskAlarm ? ["disk"] : [])];
    this.reason = reasons.length === 0 ? null : `low on ${reasons.join(" and ")}`;
    if (this.reason === null && this.blocked.size > 0) {
      const released = [...this.blocked];
      this.blocked.clear();
      for (const c of released) c.unblock();
    }
  }
}
