/**
 * MQTT's UTF-8 rule (MQTT 3.1.1 §1.5.3, MQTT 5 §1.5.4): a packet whose strings (topic, topic
 * filters, client id, user name, property strings) are not well-formed UTF-8 is malformed and
 * closes the connection. mqtt-packet decodes strings without checking (bad bytes become U+FFFD),
 * so this wraps its parser's string reader: a decoded string holding U+FFFD has its bytes checked,
 * and ill-formed ones make the reader fail, which mqtt-packet reports as a parse error. Well-formed
 * strings cost one scan of the decoded text for U+FFFD.
 *
 * It reaches into mqtt-packet's Parser (`_parseString`, `_list`, `_pos`, stable across v7–v9); if a
 * future version moves them, `strictUtf8` throws at once rather than letting bad strings through.
 */
import { isUtf8 } from "node:buffer";
import type { Parser } from "mqtt-packet";

interface ParserInternals {
  _parseString: (this: unknown) => string | null;
  _list: { slice(start: number, end: number): Buffer };
  _pos: number;
}

export function strictUtf8(p: Parser): Parser {
  const internals = p as unknown as ParserInternals;
  const read = internals._parseString;
  if (typeof read !== "function" || !("_list" in internals)) throw new Error("mqtt-packet's parser has changed: its string reader cannot be checked for UTF-8");
  internals._parseString = function (this: unknown): string | null {
    const start = internals._pos + 2;
    const s = read.call(this);
    if (s !== null && s.includes("\uFFFD") && !isUtf8(internals._list.slice(start, internals._pos))) return null;
    return s;
  };
  return p;
}
