/**
 * Runs the real bin/coneyctl.js as a subprocess (as an operator would) and collects its exit
 * code, stdout and stderr. CONEY_* variables of the test's own environment are not passed on,
 * so each call names its broker explicitly.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestBroker } from "../helpers/broker.js";
import { withTimeout } from "../helpers/wait.js";

export const CONEYCTL = fileURLToPath(new URL("../../../bin/coneyctl.js", import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Piped to standard input; without it stdin is closed at once (nothing piped). */
  readonly stdin?: string;
  readonly env?: Record<string, string>;
}

export function run(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("CONEY_")));
  const child = spawn(process.execPath, [CONEYCTL, ...args], { env: { ...env, ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdin.end(options.stdin);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return withTimeout(done, 20_000, `coneyctl ${args.join(" ")}`);
}

/** coneyctl against a test broker (its management port given with --port). */
export function ctl(broker: TestBroker, args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return run(["--port", String(broker.httpPort), ...args], options);
}

/** The usage block rabbitmqctl prints under an argument validation error, for one command. */
export function usageError(argsGiven: readonly string[], usage: string, detail = "not enough arguments."): string {
  return (
    `Error (argument validation): ${detail}\nArguments given:\n\t${argsGiven.join(" ")}\n\nUsage\n\n` +
    `coneyctl [--host <host>] [--port <port>] [--username <username>] [--password <password>] [--quiet] ${usage}\n`
  );
}
