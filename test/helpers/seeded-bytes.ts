/** Deterministic bytes from a seed (a sha256 chain), so a misplaced, lost or overwritten byte shows as a mismatch. */
import { createHash } from "node:crypto";

export function seededBytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let h = createHash("sha256").update(String(seed)).digest();
  for (let off = 0; off < size; off += h.length) {
    h.copy(out, off, 0, Math.min(h.length, size - off));
    h = createHash("sha256").update(h).digest();
  }
  return out;
}
