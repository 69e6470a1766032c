/** A `coney` process started by a test: the AMQP port its "Coney started" log line names. */
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { withTimeout } from "./wait.js";

/** Resolves with the port and a reader of everything the process has written to stderr so far. */
export async function startedAmqpPort(child: ChildProcessByStdio<null, null, Readable>, timeoutMs = 10_000): Promise<{ port: number; stderr: () => string }> {
  let stderr = "";
  const port = await withTimeout(
    new Promise<number>((resolve) => {
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        const m = /"msg":"Coney started","amqp_port":(\d+)/.exec(stderr);
        if (m) resolve(Number(m[1]));
      });
    }),
    timeoutMs,
    "the startup log line",
  );
  return { port, stderr: () => stderr };
}
