// What the connecting node keeps of its forwarded messages for DELIVER_OWN
// (src/node-link/kept-forwards.ts): found by position until STORED covers it, never after; a lent
// body is held while kept (its slab comes back only once both the kept hold and the others end);
// memory is let go as STORED advances, and everything when the link is lost.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMessage, type Message } from "../../src/broker/index.js";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { KeptForwards } from "../../src/node-link/kept-forwards.js";

const plain = (i: number): Message => createMessage("", `k${i}`, {}, null, Buffer.from([i & 0xff]), 0);

/** A message whose body lies in a slab of `pool`, its lease handed over to one entry (as after routing). */
function leased(pool: SlabPool): Message {
  const slab = pool.take();
  slab.bytes.fill(7, 0, 300);
  const lease = pool.lease();
  const body = slab.bytes.subarray(0, 300);
  lease.add(body);
  slab.release(); // the reader moved on: the lease alone holds the slab
  lease.handOver(1);
  return createMessage("", "k", {}, null, body, 0, lease);
}

describe("kept forwards", () => {
  it("finds each message by its position until STORED covers it", () => {
    const k = new KeptForwards();
    const ms = [1, 2, 3, 4, 5].map(plain);
    for (const m of ms) k.keep(m);
    assert.equal(k.at(1), ms[0]);
    assert.equal(k.at(5), ms[4]);
    assert.equal(k.at(0), undefined, "no position 0");
    assert.equal(k.at(6), undefined, "not yet forwarded");
    k.storedThrough(3);
    assert.equal(k.size, 2);
    assert.equal(k.at(3), undefined, "STORED: gone");
    assert.equal(k.at(4), ms[3]);
    k.storedThrough(2);
    assert.equal(k.at(4), ms[3], "an older STORED changes nothing");
    k.keep(plain(6));
    k.storedThrough(6);
    assert.equal(k.size, 0);
    const seven = plain(7);
    k.keep(seven);
    assert.equal(k.at(7), seven, "positions go on after everything was let go");
  });

  it("holds a lent body while kept: its slab comes back once the entry and STORED are both done", () => {
    const pool = new SlabPool({ slabBytes: 1024, maxFree: 4, poison: true });
    const k = new KeptForwards();
    const m = leased(pool);
    k.keep(m);
    m.lease!.release(); // the entry's hold ends (written to the link)
    assert.equal(pool.outstanding, 1, "still kept");
    assert.equal(k.at(1)!.body, m.body);
    assert.equal((m.body as Buffer)[0], 7, "not poisoned");
    k.storedThrough(1);
    assert.equal(pool.outstanding, 0, "STORED: the slab went back");
    assert.equal(pool.freeCount, 1);
  });

  it("lets everything go when the link is lost, and stays bounded over a long run", () => {
    const pool = new SlabPool({ slabBytes: 1024, maxFree: 4, poison: true });
    const k = new KeptForwards();
    let position = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 100; i++) k.keep(plain(++position));
      k.storedThrough(position - 10);
      assert.equal(k.size, 10);
      assert.equal(k.at(position)!.routingKey, `k${position}`);
    }
    const m = leased(pool);
    k.keep(m);
    position++;
    m.lease!.release();
    k.dropAll();
    assert.equal(k.size, 0);
    assert.equal(k.at(position), undefined);
    assert.equal(pool.outstanding, 0, "lost: the kept hold ended");
    const next = plain(position + 1);
    k.keep(next);
    assert.equal(k.at(position + 1), next, "positions continue after a drop");
  });
});
