import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { deadLetteredMessage, isDeadLetterCycle } from "../../src/broker/dead-letter.js";
import { createMessage } from "../../src/broker/message.js";

const target = { exchange: "dlx", routingKey: null };

describe("dead-letter rules", () => {
  it("builds x-death newest first, one table per (queue, reason), count as a long", () => {
    const m0 = createMessage("ex", "rk", { headers: { CC: ["cc1"] }, expiration: "100" }, null, Buffer.from("b"), 0);
    const m1 = deadLetteredMessage(m0, "q1", "expired", 5000, target);
    const m2 = deadLetteredMessage(m1, "q2", "rejected", 6000, { exchange: "dlx", routingKey: "fixed" });
    const m3 = deadLetteredMessage(m2, "q1", "expired", 7000, target);
    const deaths = m3.properties.headers!["x-death"] as Array<Record<string, unknown>>;
    assert.deepEqual(deaths.map((d) => [d["queue"], d["reason"], d["count"]]), [["q1", "expired", 2n], ["q2", "rejected", 1n]]);
    assert.deepEqual(deaths[0]!["routing-keys"], ["rk", "cc1"]);
    assert.equal(deaths[0]!["original-expiration"], "100");
    assert.deepEqual(deaths[0]!["time"], new Date(5000));
    assert.equal(m1.properties.expiration, undefined);
    assert.equal(m2.routingKey, "fixed");
    assert.equal(m2.properties.headers!["CC"], undefined, "a dead-letter routing key drops CC");
    assert.equal(m3.properties.headers!["x-first-death-queue"], "q1");
    assert.equal(m2.properties.headers!["x-last-death-queue"], "q2");
    assert.equal(m2.properties.headers!["x-last-death-reason"], "rejected");
    assert.equal(m2.properties.headers!["x-last-death-exchange"], "dlx", "the exchange it was in when it died");
    assert.equal(m3.exchange, "dlx");
    assert.equal(m0.properties.headers!["x-death"], undefined, "the original message is not changed");
  });

  it("a cycle is a return to a queue in the history with no rejection on the way", () => {
    const m0 = createMessage("ex", "rk", {}, null, Buffer.from("b"), 0);
    const expired = deadLetteredMessage(m0, "a", "expired", 0, target);
    assert.equal(isDeadLetterCycle(expired, "a", "expired"), true);
    assert.equal(isDeadLetterCycle(expired, "b", "expired"), false);
    assert.equal(isDeadLetterCycle(expired, "a", "rejected"), false);
    const viaReject = deadLetteredMessage(deadLetteredMessage(m0, "a", "rejected", 0, target), "b", "maxlen", 0, target);
    assert.equal(isDeadLetterCycle(viaReject, "a", "maxlen"), false, "a rejection in the loop");
    assert.equal(isDeadLetterCycle(viaReject, "b", "maxlen"), true);
  });
});
