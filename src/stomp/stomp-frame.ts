/**
 * A STOMP frame as the parser yields it and the connection reads it: the command, its headers in
 * the order they came (a repeated header keeps its first value, STOMP 1.2 §"Repeated Header
 * Entries"), and the body, a slice of the bytes read (never copied).
 */
export type StompVersion = "1.0" | "1.1" | "1.2";

export interface StompFrame {
  readonly command: string;
  /** Decoded names and values, in arrival order; the first of a repeated name wins. */
  readonly headers: Map<string, string>;
  readonly body: Buffer;
}

export const SUPPORTED_VERSIONS: readonly StompVersion[] = ["1.0", "1.1", "1.2"];
