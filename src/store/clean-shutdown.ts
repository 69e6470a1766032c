/**
 * The clean-shutdown marker of the message store. A delivery's "delivered" mark reaches the
 * side file in the flush after the delivery was written to the socket, so a process killed in
 * between leaves a delivered message with no mark. The marker tells recovery whether that can
 * have happened: it is written (synced) only after a clean close has flushed every mark, and
 * taken away as soon as a broker starts using the store. When it is missing, recovery treats
 * every message as possibly delivered and restores it with the redelivered flag, as the AMQP
 * flag's meaning ("may have been delivered before") asks.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "./atomic-file.js";
import type { Logger } from "../logging/logger.js";

const MARKER = "clean-shutdown";

/** Reads and removes the marker: true when the last broker using `dir` closed cleanly. */
export function takeCleanShutdownMarker(dir: string): boolean {
  const path = join(dir, MARKER);
  const clean = existsSync(path);
  rmSync(path, { force: true });
  return clean;
}

/** Writes the marker after a clean close; a failure only costs redelivered flags at the next start. */
export function writeCleanShutdownMarker(dir: string, logger: Logger): void {
  try {
    writeFileAtomicSync(join(dir, MARKER), "");
  } catch (err) {
    logger.warn("message store: the clean-shutdown marker could not be written; messages come back marked redelivered", { err });
  }
}
