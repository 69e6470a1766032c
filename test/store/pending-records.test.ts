// The write plan of a segment's pending records (pending-records.ts): checksums, runs and holes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEFER_MAX, HOLE_MIN, PendingRecords } from "../../src/store/pending-records.js";

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
    table.begin(pos, pieces.length, needsCrc, i + 1);
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

  it("a capped write takes the oldest records until the live ones reach the budget; cancelled ones cost nothing", () => {
    const { table, offsets, end } = setup([100, 200, 300, 400]);
    assert.equal(table.cut(Infinity, end), 4);
    assert.equal(table.cut(0, end), 0, "no budget, no records");
    assert.equal(table.cut(1, end), 1, "at least the record that reaches the budget");
    assert.equal(table.cut(300, end), 2, "100 + 200 reach 300");
    assert.equal(table.cut(301, end), 3);
    table.cancel(offsets[1]!);
    assert.equal(table.cut(300, end), 3, "the cancelled 200 is free: 100 + 300 reach it");
    assert.equal(table.firstAppendPosition, 1);
  });

  it("records a capped write leaves stay pending in order, can still be cancelled, and are written later at their offsets", () => {
    const { table, pieces, offsets, end } = setup([100, BIG, 300]);
    const taken = table.cut(100, end);
    assert.equal(taken, 1);
    const firstPieces = pieces.slice(0, 3); // magic, record 0's head and body
    const runs = table.plan(firstPieces, 0, offsets[1]!, true, taken);
    assert.deepEqual(runs.map((r) => [r.position, bytes(r.pieces)]), [[0, offsets[1]!]]);
    assert.equal(table.length, 2);
    assert.equal(table.firstAppendPosition, 2, "the second record is the oldest left");
    assert.equal(table.cancel(offsets[0]!), false, "a written record can no longer be cancelled");
    assert.equal(table.cancel(offsets[1]!), true, "a deferred one still can");
    const rest = table.plan(pieces.slice(3), offsets[1]!, end, true);
    assert.deepEqual(
      rest.map((r) => [r.position, bytes(r.pieces)]),
      [
        [offsets[1]!, 9], // the deferred record died while it waited: its skipped head only
        [offsets[2]!, 300],
      ],
    );
    assert.notEqual(pieces[5]!.readUInt32LE(4), 0, "the last record's checksum is filled");
    assert.equal(table.length, 0);
    assert.equal(table.firstAppendPosition, Infinity);
  });

  it("a capped write leaves at most DEFER_MAX bytes pending, whatever its budget", () => {
    const big = 16 * 1024 * 1024;
    const { table, end } = setup([big, big, big, big, big, big]);
    // 96 MiB pending: at least the 32 MiB beyond DEFER_MAX is written, two whole records.
    assert.equal(table.cut(1, end), 2);
    assert.ok(end - 8 - 2 * big <= DEFER_MAX);
  });

  it("consecutive cancelled records are one stretch: the first head spans them, one hole, one run after it", () => {
    const { table, pieces, offsets, end } = setup([100, BIG, 300, BIG, 200, 500]);
    for (const k of [1, 2, 3]) table.cancel(offsets[k]!);
    const runs = table.plan(pieces, 0, end, true);
    assert.deepEqual(
      runs.map((r) => [r.position, bytes(r.pieces)]),
      [
        [0, offsets[1]! + 9], // magic, record 0, record 1's skipped head
        [offsets[4]!, 200 + 500],
      ],
    );
    const head = runs[0]!.pieces.at(-1)!;
    assert.equal(head.readUInt32LE(0), offsets[4]! - offsets[1]! - 8, "the head's length spans records 1..3");
    assert.equal(head[8], 3, "kind: skipped");
  });

  it("small records that die together are left out once their stretch reaches HOLE_MIN; a shorter stretch is written in place", () => {
    const small = 16 * 1024;
    const { table, pieces, offsets, end } = setup([100, small, small, small, small, small, 100, small, 100]);
    for (const k of [1, 2, 3, 4, 5, 7]) table.cancel(offsets[k]!);
    const runs = table.plan(pieces, 0, end, true);
    assert.deepEqual(
      runs.map((r) => [r.position, bytes(r.pieces)]),
      [
        [0, offsets[1]! + 9],
        [offsets[6]!, 100 + small + 100], // record 7 alone is short: written in place, marked skipped
      ],
    );
    assert.equal(pieces[15]![8], 3, "record 7 is marked skipped in place");
  });
});
