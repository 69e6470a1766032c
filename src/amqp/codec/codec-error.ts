/** Malformed protocol data. The connection turns it into a SYNTAX_ERROR (or FRAME_ERROR) close. */
export class CodecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CodecError";
  }
}
