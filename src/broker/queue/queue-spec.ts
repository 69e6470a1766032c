/** What declares a queue (queue.declare, PUT /api/queues, a definitions import). */
import type { FieldTable } from "../values/field-value.js";

export interface QueueSpec {
  readonly name: string;
  readonly durable: boolean;
  readonly autoDelete: boolean;
  /** The owning connection of an exclusive queue, null otherwise. */
  readonly exclusiveOwner: object | null;
  readonly arguments: FieldTable;
  /**
   * The queue group recorded for it (a definitions file restoring a queue); absent or null: the
   * vhost's host places it (queue-groups.ts). What the queue got is its `group`.
   */
  readonly group?: number | null;
}
