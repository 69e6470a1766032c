/**
 * A stable text form of a field table (keys sorted at every level), used for binding identity
 * and for stable binding hashes in the management API. Buffers and bigints get explicit forms
 * so that different values never collide.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return { $bigint: value.toString() };
  if (Buffer.isBuffer(value)) return { $bytes: value.toString("base64") };
  if (value instanceof Date) return { $date: value.getTime() };
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = normalise((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}
