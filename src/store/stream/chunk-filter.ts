/**
 * Chunk filters (RabbitMQ 3.13's stream filtering, docs/STREAMS.md "Chunk filters"): a chunk whose
 * messages carry filter values gets a Bloom filter of those values after its header (its size in
 * the header's bloom-size byte, as osiris lays it out), and a consumer that asks for some values
 * is sent only the chunks whose filter may hold one of them. Bit 0 marks a chunk that also holds
 * messages without a value (osiris's rule), which a consumer sees only with `match-unfiltered`.
 * A chunk none of whose messages has a value has no filter at all (bloom size 0): nothing is built
 * or checked for a stream that does not use filtering.
 */
import { crc32 } from "node:zlib";
import type { StreamFilter } from "../../broker/index.js";

/** Bytes of a chunk's filter by default (osiris's; x-stream-filter-size-bytes sets 16 to 255). */
export const FILTER_BYTES = 16;

/** Two bit positions in 1..bits-1 for a value (bit 0 is the unfiltered marker). */
function positions(value: string, bits: number): [number, number] {
  const b = Buffer.from(value, "utf8");
  const h1 = (crc32(b) >>> 0) % (bits - 1);
  const h2 = (crc32(b, 0x9e3779b9) >>> 0) % (bits - 1);
  return [h1 + 1, h2 + 1];
}

function setBit(f: Buffer, n: number): void {
  f[n >> 3]! |= 0x80 >> (n & 7);
}

function bitSet(f: Buffer, n: number): boolean {
  return (f[n >> 3]! & (0x80 >> (n & 7))) !== 0;
}

/** The filter of a chunk whose messages carry `values` (null: a message without one); null when none carries one. */
export function chunkFilter(values: readonly (string | null)[], bytes = FILTER_BYTES): Buffer | null {
  let f: Buffer | null = null;
  let unfiltered = false;
  for (const v of values) {
    if (v === null || v === "") {
      unfiltered = true;
      continue;
    }
    f ??= Buffer.alloc(bytes);
    const [a, b] = positions(v, bytes * 8);
    setBit(f, a);
    setBit(f, b);
  }
  if (f !== null && unfiltered) setBit(f, 0);
  return f;
}

/** Messages in a row with (or without) a filter value that start a chunk of their own (see chunkEnd). */
export const FILTER_RUN_MIN = 16;

/**
 * Where the chunk that starts at `from` among a turn's messages ends (at most `to`): before the
 * first run of at least FILTER_RUN_MIN messages that differs from the chunk's in carrying a filter
 * value or not. A chunk that mixes both kinds matches every filtered consumer, so it would send
 * its unfiltered messages to consumers that did not ask for them; RabbitMQ's chunks follow its
 * publishers' frames, Coney's a whole event-loop turn, so a turn is cut where the kind changes.
 * Shorter runs stay in the chunk, so a publisher alternating kinds does not make tiny chunks
 * (at most one chunk per FILTER_RUN_MIN messages).
 */
export function chunkEnd(values: readonly (string | null)[], from: number, to: number): number {
  const has = (i: number): boolean => values[i] !== null && values[i] !== "";
  const kind = has(from);
  let i = from + 1;
  while (i < to) {
    if (has(i) === kind) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < to && has(j) !== kind) j++;
    if (j - i >= FILTER_RUN_MIN) return i;
    i = j;
  }
  return to;
}

/** Decides per chunk filter (an empty Buffer: the chunk has none) whether the chunk may hold a wanted message. */
export class ChunkMatcher {
  private readonly bits = new Map<number, Array<[number, number]>>();

  constructor(readonly spec: StreamFilter) {}

  matches(filter: Buffer): boolean {
    if (filter.length === 0) return this.spec.matchUnfiltered;
    if (this.spec.matchUnfiltered && bitSet(filter, 0)) return true;
    const bits = filter.length * 8;
    let hashes = this.bits.get(bits);
    if (hashes === undefined) this.bits.set(bits, (hashes = this.spec.values.map((v) => positions(v, bits))));
    for (const [a, b] of hashes) if (bitSet(filter, a) && bitSet(filter, b)) return true;
    return false;
  }
}

/** A consumer's filter from stream Subscribe properties (`filter.0`, `filter.1`, …, `match-unfiltered`); null: none asked. */
export function filterFromProperties(p: ReadonlyMap<string, string>): StreamFilter | null {
  const values: string[] = [];
  for (const [k, v] of p) if (k.startsWith("filter.")) values.push(v);
  if (values.length === 0) return null;
  return { values, matchUnfiltered: p.get("match-unfiltered") === "true" };
}
