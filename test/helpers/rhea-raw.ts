/**
 * The AMQP 1.0 payloads rhea receives, as bytes: rhea decodes every transfer's payload with
 * rhea.message.decode before it hands the message over, so the tests that compare sections byte
 * for byte wrap that function while `run` receives, and get each payload as it came.
 */
import rhea from "rhea";

export async function receivedPayloads(run: () => Promise<void>): Promise<Buffer[]> {
  const util = rhea.message as unknown as { decode: (b: Buffer) => unknown };
  const decode = util.decode;
  const raws: Buffer[] = [];
  util.decode = (b: Buffer) => {
    raws.push(Buffer.from(b));
    return decode(b);
  };
  try {
    await run();
  } finally {
    util.decode = decode;
  }
  return raws;
}
