/**
 * The IPC side of the management API's whole-broker lists (src/http/peer-records.ts): a worker asks
 * every other worker (`records`, request, through the primary's hub) and waits for all answers up
 * to a timeout; a worker that is down (the hub answers at once), fails or is slow is left out, so
 * the list still comes, without it. Each worker answers with what its API's answerer returns.
 */
import type { PeerQuery, PeerRecords } from "../http/peer-records.js";
import type { IpcEndpoint } from "./ipc-endpoint.js";

/** How long a list waits for a worker (a worker busy longer than this is left out of that answer). */
export const RECORDS_TIMEOUT_MS = 1000;

export const RECORDS_TOPIC = "records";

export class WorkerRecords implements PeerRecords {
  private answer: ((q: PeerQuery) => unknown) | null = null;

  constructor(
    private readonly endpoint: IpcEndpoint,
    /** The other workers' addresses (w<i>). */
    private readonly others: readonly string[],
    private readonly timeoutMs = RECORDS_TIMEOUT_MS,
  ) {
    endpoint.handle(RECORDS_TOPIC, (body) => {
      if (this.answer === null) throw new Error(`${endpoint.self}: its management API is not running`);
      return this.answer(body as PeerQuery);
    });
  }

  serve(answer: (q: PeerQuery) => unknown): void {
    this.answer = answer;
  }

  async gather(q: PeerQuery): Promise<unknown[]> {
    const settled = await Promise.allSettled(this.others.map((w) => this.endpoint.request(w, RECORDS_TOPIC, q, this.timeoutMs)));
    const out: unknown[] = [];
    for (const s of settled) if (s.status === "fulfilled") out.push(s.value);
    return out;
  }
}
