/**
 * The first request head of an HTTP connection, as a follower's proxy peeks at it
 * (local-health.ts): the request line and headers up to the blank line, nothing more. Bytes are
 * only read here; the proxy forwards all of them unchanged when it does not answer itself.
 */

/** A head larger than this is not one the follower answers: it is forwarded. */
export const MAX_REQUEST_HEAD = 16 * 1024;

export interface RequestHead {
  readonly method: string;
  /** The path without its query string. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>;
}

/** The head if `bytes` holds a complete one; null while incomplete or if it is not HTTP/1.x. */
export function parseRequestHead(bytes: Buffer): RequestHead | null {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const lines = bytes.toString("latin1", 0, end).split("\r\n");
  const parts = lines[0]!.split(" ");
  if (parts.length !== 3 || !parts[2]!.startsWith("HTTP/1.")) return null;
  const target = parts[1]!;
  const q = target.indexOf("?");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { method: parts[0]!, path: q < 0 ? target : target.slice(0, q), headers };
}
