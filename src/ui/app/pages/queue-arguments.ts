/**
 * The x-* queue arguments Coney understands, with a one-line explanation each, for the add-queue
 * form: clicking one adds a row with the right name and type. `types` lists the queue types that
 * accept it.
 */
import type { ArgType } from "../components/fields.js";

export interface ArgHelp {
  readonly key: string;
  readonly type: ArgType;
  readonly help: string;
  readonly types: ReadonlyArray<"classic" | "quorum" | "stream">;
}

export const QUEUE_ARGUMENTS: readonly ArgHelp[] = [
  { key: "x-message-ttl", type: "number", help: "Messages older than this many milliseconds are discarded (or dead-lettered).", types: ["classic", "quorum"] },
  { key: "x-expires", type: "number", help: "Delete the queue after it has been unused (no consumers, no get) for this many milliseconds.", types: ["classic", "quorum"] },
  { key: "x-max-length", type: "number", help: "At most this many ready messages; x-overflow says what happens beyond.", types: ["classic", "quorum"] },
  { key: "x-max-length-bytes", type: "number", help: "At most this many bytes of ready message bodies (a stream: whole old segments go past it).", types: ["classic", "quorum", "stream"] },
  { key: "x-max-age", type: "string", help: "A stream keeps messages this long: 7D, 12h, 30m (units Y, M, D, h, m, s).", types: ["stream"] },
  { key: "x-stream-max-segment-size-bytes", type: "number", help: "A stream starts a new segment file past this size (default 500 MB).", types: ["stream"] },
  { key: "x-overflow", type: "string", help: "When full: drop-head (default), reject-publish, or reject-publish-dlx (a quorum queue runs it as drop-head).", types: ["classic", "quorum"] },
  { key: "x-dead-letter-exchange", type: "string", help: "Exchange that receives rejected, expired and dropped messages.", types: ["classic", "quorum"] },
  { key: "x-dead-letter-routing-key", type: "string", help: "Routing key for dead-lettered messages (default: their own).", types: ["classic", "quorum"] },
  { key: "x-single-active-consumer", type: "boolean", help: "Only one consumer receives at a time; the others take over if it goes.", types: ["classic", "quorum"] },
  { key: "x-max-priority", type: "number", help: "Enable priorities 0..N (1–255) on this queue.", types: ["classic"] },
  { key: "x-queue-mode", type: "string", help: "lazy: keep messages on disk as early as possible.", types: ["classic"] },
  { key: "x-delivery-limit", type: "number", help: "Dead-letter a message redelivered more than this many times.", types: ["quorum"] },
  { key: "x-consumer-timeout", type: "number", help: "Close the channel of a consumer that holds a delivery unacknowledged longer than this many milliseconds.", types: ["classic", "quorum", "stream"] },
  { key: "x-quorum-initial-group-size", type: "number", help: "Number of replicas the quorum queue starts with.", types: ["quorum"] },
];
