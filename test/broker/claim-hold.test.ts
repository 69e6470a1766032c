// A new queue of a spread cluster holds what is routed to it while its home claim is undecided
// (src/broker/queue/claim-hold.ts; docs/CLUSTERING.md, "One name declared on two nodes at once"):
// nothing is enqueued, delivered or confirmed until the claim is won (enqueued in order, then
// confirmed), lost (forwarded in order to the winner, confirmed as the winner reports) or the
// queue is deleted. The publish path's confirm wait (ForwardedPublishes) is the real one.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MessageQueue } from "../../src/broker/queue/queue.js";
import type { Queue } from "../../src/broker/queue/queue-type.js";
import { ForwardedPublishes } from "../../src/broker/queue/forwarded-publishes.js";
import type { QueueLeaderPort } from "../../src/broker/queue/queue-leader-port.js";
import type { SyncWaiter } from "../../src/broker/queue/queue-journal.js";
import { claimWon, holdUntilClaimed, takeClaimHold } from "../../src/broker/operations/claim-holds.js";
import { createMessage, type Message } from "../../src/broker/message.js";
import type { FieldTable } from "../../src/broker/values/field-value.js";
import { quietHost, recordingConsumer } from "./queue-fixture.js";

const host = quietHost();

function heldQueue(args: FieldTable = {}): { queue: MessageQueue; forwards: ForwardedPublishes } {
  const queue = new MessageQueue("/", { name: "q", durable: true, autoDelete: false, exclusiveOwner: null, arguments: args }, host);
  const forwards = new ForwardedPublishes();
  assert.equal(holdUntilClaimed({ forwards, journal: null }, queue), true);
  return { queue, forwards };
}

const message = (text: string): Message => createMessage("", "q", {}, null, Buffer.from(text), 0);

/** Publishes as Broker.publish + whenStored do: enqueue, then the confirm waits on what it was forwarded to. */
function publish(queue: Queue, forwards: ForwardedPublishes, text: string, answers: Array<[string, boolean]>): boolean {
  const before = forwards.count;
  const accepted = queue.enqueue(message(text));
  if (forwards.count !== before) forwards.wait({ synced: (_t, ok) => void answers.push([text, ok]) } satisfies SyncWaiter, 0, null);
  return accepted;
}

describe("ClaimHold: a new queue's messages while its home claim is undecided", () => {
  it("holds without enqueueing, delivering or confirming; won: enqueued in order, then confirmed", () => {
    const { queue, forwards } = heldQueue();
    const got: string[] = [];
    queue.addConsumer(recordingConsumer(got));
    const answers: Array<[string, boolean]> = [];
    for (const t of ["a", "b", "c"]) assert.equal(publish(queue, forwards, t, answers), true);
    assert.equal(queue.messageCount, 0);
    assert.deepEqual(got, []);
    assert.deepEqual(answers, []);
    claimWon({ forwards, journal: null }, queue);
    assert.deepEqual(got, ["a", "b", "c"]);
    assert.deepEqual(answers, [["a", true], ["b", true], ["c", true]]);
    // Decided: the next publish is an ordinary enqueue (no forward, no wait).
    const before = forwards.count;
    publish(queue, forwards, "d", answers);
    assert.equal(forwards.count, before);
    assert.deepEqual(got, ["a", "b", "c", "d"]);
  });

  it("won: a held message the queue refuses at its length limit (reject-publish) is nacked, the others confirmed", () => {
    const { queue, forwards } = heldQueue({ "x-max-length": 1, "x-overflow": "reject-publish" });
    const answers: Array<[string, boolean]> = [];
    publish(queue, forwards, "a", answers);
    publish(queue, forwards, "b", answers);
    claimWon({ forwards, journal: null }, queue);
    assert.deepEqual(answers, [["a", true], ["b", false]]);
    assert.equal(queue.messageCount, 1);
  });

  it("lost: the held messages go in order to the winner's port, each confirmed as the winner reports it", () => {
    const { queue, forwards } = heldQueue();
    const answers: Array<[string, boolean]> = [];
    for (const t of ["a", "b", "c"]) publish(queue, forwards, t, answers);
    const sent: string[] = [];
    const waits: Array<{ first: number; last: number; report(ok: boolean): void }> = [];
    const winner = {
      forward: (_q: unknown, m: Message) => sent.push(m.body.toString()) + 100,
      whenStored: (w: SyncWaiter, token: number, first: number, last: number) => void waits.push({ first, last, report: (ok) => w.synced(token, ok) }),
    } as unknown as QueueLeaderPort;
    const hold = takeClaimHold(queue)!;
    assert.equal(queue.claimHold, null);
    hold.lost(winner, queue);
    assert.deepEqual(sent, ["a", "b", "c"]);
    assert.deepEqual(waits.map((w) => [w.first, w.last]), [[101, 101], [102, 102], [103, 103]]);
    assert.deepEqual(answers, [], "nothing confirmed before the winner stored it");
    waits[0]!.report(true);
    waits[1]!.report(false);
    waits[2]!.report(true);
    assert.deepEqual(answers, [["a", true], ["b", false], ["c", true]]);
  });

  it("deleted while undecided: the held messages go with the queue, confirmed", () => {
    const { queue, forwards } = heldQueue();
    const answers: Array<[string, boolean]> = [];
    publish(queue, forwards, "a", answers);
    queue.markDeleted();
    assert.deepEqual(answers, [["a", true]]);
  });
});
