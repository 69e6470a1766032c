/** The `workers` setting (`--workers`, CONEY_WORKERS, rabbitmq.conf `workers`): a count of at least 1, or `auto` for every core. */
import { availableParallelism } from "node:os";

/** The count `raw` names, or null when it names none. */
export function parseWorkerCount(raw: string): number | null {
  if (raw.trim() === "auto") return availableParallelism();
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && raw.trim() !== "" ? n : null;
}

export const WORKERS_EXPECTED = "not a number of workers (1 or more, or auto)";
