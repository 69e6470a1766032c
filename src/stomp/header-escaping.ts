/**
 * Header escaping per STOMP version: 1.0 has none; 1.1 escapes `\n`, `:` and `\` as `\n`, `\c`
 * and `\\`; 1.2 also `\r` as `\r`. CONNECT and CONNECTED are never escaped (1.2 §"Value
 * Encoding"). An undefined escape is a fatal protocol error (null here). Plain strings, the
 * common case, are returned as they are after one scan for a backslash (no regex).
 */
import type { StompVersion } from "./stomp-frame.js";

/** Decodes an escaped header name or value; null for an undefined escape sequence. */
export function unescapeHeader(s: string, version: StompVersion): string | null {
  if (version === "1.0" || s.indexOf("\\") < 0) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 92) {
      out += s[i];
      continue;
    }
    const n = s[++i];
    if (n === "n") out += "\n";
    else if (n === "c") out += ":";
    else if (n === "\\") out += "\\";
    else if (n === "r" && version === "1.2") out += "\r";
    else return null;
  }
  return out;
}

/** Encodes a header name or value for `version`. */
export function escapeHeader(s: string, version: StompVersion): string {
  if (version === "1.0") return s;
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 || c === 10 || c === 58 || c === 13) {
      plain = false;
      break;
    }
  }
  if (plain) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === ":") out += "\\c";
    else if (ch === "\r" && version === "1.2") out += "\\r";
    else out += ch;
  }
  return out;
}
