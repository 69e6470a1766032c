// The write plan of a segment's pending records (pending-records.ts): checksums, runs and holes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HOLE_MIN, PendingRecords } from "../../src/store/pending-records.js";

/** A fake record of `len` bytes: a 12-byte head (length, checksum, kind 1, filler) then filler. */
function rec(len: number, fill: number): Buffer[] {
  const head = Buffer.alloc(12);
  head.writeUInt32LE(len - 8, 0);
  head[8] = 1;
  return [head, Buffer.alloc(len - 12, fill)];
}

function setup(lens: number[], needsCrc = true): { table: PendingRecords; pieces: Buffer[]; offsets: number[]; end: number } {
  const magic = Buffer.from("MAGIC123");
  const pieces: Buffer[] = [magic];
  const table = new PendingRecords(0);
  const offsets: number[] = [];
  let pos = magic.length;
  lens.forEach((len, i) => {
    offsets.push(pos);
    table.begin(pos, pieces.length, needsCrc);
    pieces.push(...rec(len, i + 1));
    table.end(pieces.length);
    pos += len;
  });
  return { table, pieces, offsets, end: pos };
}

const bytes = (bufs: readonly Buffer[]): number => bufs.reduce((n, b) => n + b.length, 0);
const BIG = HOLE_MIN + 100;

describe("pending records", () => {
  it("with nothing cancelled: one run from the start, every checksum filled", () => {
    const { table, pieces, end } = setup([100, BIG, 300]);
    const runs = table.plan(pieces, 0, end, true);
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.position, 0);
    assert.equal(bytes(runs[0]!.pieces), end);
    for (const k of [1, 3, 5]) assert.notEqual(pieces[k]!.readUInt32LE(4), 0, "checksum filled");
  });

  it("a large cancelled record is left out after its 9-byte skipped head; the next run starts after its extent", () => {
    const { table, pieces, offsets, end } = setup([100, BIG, 300, BIG]);
    assert.equal(table.cancel(offsets[1]!), true);
    assert.equal(table.cancel(offsets[3]!), true);
    assert.equal(table.cancel(offsets[1]! + 1), false, "not a record's start");
    const runs = table.plan(pieces, 0, end, true);
    assert.deepEqual(
      runs.map((r) => [r.position, bytes(r.pieces)]),
      [
        [0, 8 + 100 + 9], // magic, record 0, record 1's skipped head
        [offsets[2]!, 300 + 9], // record 2, record 3's skipped head
      ],
    );
    const skipped = runs[0]!.pieces.at(-1)!;
    assert.equal(skipped.readUInt32LE(0), BIG - 8, "the skipped head keeps the record's length");
    assert.equal(skipped.readUInt32LE(4), 0, "a cancelled record is never checksummed");
    assert.equal(skipped[8], 3, "kind: skipped");
    assert.notEqual(pieces[5]!.readUInt32LE(4), 0);
  });

  it("a small cancelled record is written in place, marked skipped, without a checksum", () => {
    const { table, pieces, offsets, end } = setup([100, 200, 300]);
    table.cancel(offsets[1]!);
    const runs = table.plan(pieces, 0, end, true);
    assert.equal(runs.length, 1);
    assert.equal(bytes(runs[0]!.pieces), end);
    assert.equal(pieces[3]![8], 3);
    assert.equal(pieces[3]!.readUInt32LE(4), 0);
    assert.notEqual(pieces[1]!.readUInt32LE(4), 0);
  });

  it("leaves no hole when told not to (a cluster leader's followers append the same bytes)", () => {
    const { table, pieces, offsets, end } = setup([BIG, 200]);
    table.cancel(offsets[0]!);
    const runs = table.plan(pieces, 0, end, false);
    assert.equal(runs.length, 1);
    assert.equal(bytes(runs[0]!.pieces), end);
    assert.equal(pieces[1]![8], 3, "still marked skipped");
  });

  it("records handed to a write can no longer be cancelled; the table starts afresh at the end", () => {
    const { table, pieces, offsets, end } = setup([100]);
    table.plan(pieces, 0, end, true);
    assert.equal(table.cancel(offsets[0]!), false);
    assert.equal(table.length, 0);
  });

  it("writes records that arrived already encoded as they are, even cancelled", () => {
    const { table, pieces, offsets, end } = setup([BIG], false);
    table.cancel(offsets[0]!);
    const runs = table.plan(pieces, 0, end, true);
    assert.equal(bytes(runs[0]!.pieces), end);
    assert.equal(pieces[1]![8], 1);
  });
});
