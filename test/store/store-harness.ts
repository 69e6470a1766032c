/**
 * Helpers for message-store tests: a broker in a child process (so it can be killed with
 * SIGKILL), a logger that keeps its lines, and draining a queue with basic.get.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Channel, GetMessage } from "amqplib";
import { createLogger, type Logger } from "../../src/logging/logger.js";
import { withTimeout } from "../helpers/wait.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

export interface ChildBroker {
  readonly child: ChildProcess;
  readonly url: string;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

export async function spawnBroker(dataDir: string): Promise<ChildBroker> {
  const child = spawn(process.execPath, [bin, "--amqp-port", "0", "--http-port", "off", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const port = await withTimeout(
    new Promise<number>((resolve, reject) => {
      child.on("exit", (code) => reject(new Error(`broker exited (${code}): ${log}`)));
      child.stderr!.on("data", (d: Buffer) => {
        log += d.toString();
        const m = /"amqp_port":(\d+)/.exec(log);
        if (m) resolve(Number(m[1]));
      });
    }),
    10_000,
    "broker startup",
  );
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    child,
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger("debug", (l) => lines.push(l)), lines };
}

/** Every message of a queue, by basic.get (no-ack unless told). */
export async function drain(ch: Channel, queue: string, noAck = true): Promise<GetMessage[]> {
  const out: GetMessage[] = [];
  for (;;) {
    const m = await ch.get(queue, { noAck });
    if (!m) return out;
    out.push(m);
  }
}
