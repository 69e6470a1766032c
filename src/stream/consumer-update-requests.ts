/**
 * The ConsumerUpdate requests a connection sends its client (single active consumer, RabbitMQ
 * 3.11): each has a correlation id of the server's own and waits for the client's answer, at most
 * 5 s (then it counts as unanswered).
 *
 * Invariant: each request's `answered` is called exactly once: with the answer's body, or null
 * (no answer in time, or the connection went).
 */
import { CMD } from "./protocol.js";
import { FrameWriter, type FrameCursor } from "./wire.js";

const ANSWER_TIMEOUT_MS = 5000;

export class ConsumerUpdateRequests {
  private correlation = 0;
  private readonly waiting = new Map<number, (body: FrameCursor | null) => void>();

  /** Asks the client (through `send`) whether subscription `subscriptionId` is now active. */
  ask(send: (frame: Buffer) => void, subscriptionId: number, active: boolean, answered: (body: FrameCursor | null) => void): void {
    const corr = ++this.correlation;
    const timer = setTimeout(() => this.answered(corr, null), ANSWER_TIMEOUT_MS);
    timer.unref();
    this.waiting.set(corr, (body) => {
      clearTimeout(timer);
      answered(body);
    });
    send(new FrameWriter(CMD.consumerUpdate, 1, 16).u32(corr).u8(subscriptionId).u8(active ? 1 : 0).frame());
  }

  /** The client's answer to request `corr` (null: none will come); an unknown or late one is ignored. */
  answered(corr: number, body: FrameCursor | null): void {
    const waiting = this.waiting.get(corr);
    if (waiting === undefined) return;
    this.waiting.delete(corr);
    waiting(body);
  }

  /** The connection went: every request still waiting is unanswered. */
  dropAll(): void {
    for (const corr of [...this.waiting.keys()]) this.answered(corr, null);
  }
}
