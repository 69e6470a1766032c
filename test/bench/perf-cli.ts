/** Running the coney-perf executable from tests, and reading its printed rates. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const bin = new URL("../../../bin/coney-perf.js", import.meta.url).pathname;
const exec = promisify(execFile);

/** Runs `coney-perf <args>` with this Node; rejects on a non-zero exit. */
export function runPerfCli(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return exec(process.execPath, [bin, ...args]);
}

/** The msg/s a run printed after `label:` ("published", "consumed"). */
export function printedRate(stdout: string, label: string): number {
  return Number(new RegExp(`${label}:\\s+([\\d,]+) msg/s`).exec(stdout)?.[1]?.replaceAll(",", ""));
}
