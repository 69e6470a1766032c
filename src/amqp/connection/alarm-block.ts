/**
 * Resource alarms reaching a connection, as RabbitMQ does it: a connection that publishes while
 * a memory or disk alarm is on is blocked (connection.blocked is sent and the socket is no longer
 * read, so TCP back-pressure reaches the publisher) until every alarm has cleared. Only clients
 * that announced the "connection.blocked" capability get connection.blocked/unblocked.
 */
import type { Blockable, ResourceAlarms } from "../../broker/index.js";
import type { FieldTable } from "../../broker/values/field-value.js";
import { encodeConnectionBlocked, encodeConnectionUnblocked } from "../codec/generated.js";
import type { OutputBuffer } from "../codec/output-buffer.js";

/** What blocking needs of its connection. */
export interface BlockHost {
  readonly output: { readonly out: OutputBuffer; maybeFlush(): void; flush(): void };
  readonly clientProperties: FieldTable;
  /** False once the connection is closing or closed. */
  readonly isOpen: boolean;
  /** Stops reading the socket (the frames already read are still handled) and shows "blocked". */
  stopReadingForAlarm(): void;
  /** Shows "running" again and reads the socket unless flow control still holds it. */
  resumeReadingAfterAlarm(): void;
}

export class AlarmBlock implements Blockable {
  /** Set while an alarm holds this connection: connection.blocked sent, socket not read. */
  active = false;

  /** The alarms that hold this connection, once blocked. */
  private alarms: ResourceAlarms | null = null;

  constructor(private readonly host: BlockHost) {}

  /**
   * A basic.publish arrived while an alarm is on and this connection is not blocked yet. (The
   * connection tests that inline per publish: `alarms?.reason != null && !block.active`.)
   */
  block(alarms: ResourceAlarms): void {
    this.active = true;
    this.host.stopReadingForAlarm();
    if (this.understandsBlocked) {
      encodeConnectionBlocked(this.host.output.out, 0, { reason: alarms.reason ?? "" });
      this.host.output.maybeFlush();
    }
    this.alarms = alarms;
    alarms.hold(this);
  }

  /** Called by ResourceAlarms when every alarm has cleared. */
  unblock(): void {
    if (!this.active) return;
    this.active = false;
    if (!this.host.isOpen) return;
    if (this.understandsBlocked) encodeConnectionUnblocked(this.host.output.out, 0, {});
    this.host.output.flush();
    this.host.resumeReadingAfterAlarm();
  }

  /** The connection is gone: the alarms forget it. */
  release(): void {
    this.alarms?.release(this);
  }

  private get understandsBlocked(): boolean {
    const caps = this.host.clientProperties["capabilities"];
    return typeof caps === "object" && caps !== null && (caps as Record<string, unknown>)["connection.blocked"] === true;
  }
}
