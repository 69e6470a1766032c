/**
 * A memory or disk alarm holding one MQTT publisher: a PUBLISH that arrives while an alarm is on
 * stops the reading of its socket (the packets already read are still handled) until every alarm
 * has cleared. MQTT has no "blocked" packet; TCP back-pressure tells the client.
 */
import type { Blockable, ResourceAlarms } from "../broker/index.js";

export class AlarmHold {
  /** True while an alarm holds the publisher: its socket is not read. */
  held = false;
  private readonly block: Blockable = { unblock: () => this.cleared() };

  constructor(
    private readonly alarms: ResourceAlarms | null,
    private readonly pause: () => void,
    /** Every alarm cleared: reading may resume (unless something else holds it). */
    private readonly resume: () => void,
  ) {}

  /** A PUBLISH arrived: held when an alarm is on. */
  check(): void {
    const alarms = this.alarms;
    if (alarms === null || alarms.reason === null || this.held) return;
    this.held = true;
    this.pause();
    alarms.hold(this.block);
  }

  /** The connection closed. */
  release(): void {
    this.alarms?.release(this.block);
  }

  private cleared(): void {
    if (!this.held) return;
    this.held = false;
    this.resume();
  }
}
