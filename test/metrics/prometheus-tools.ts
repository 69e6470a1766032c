/**
 * The real Prometheus programs the metrics tests drive. Missing programs fail the test with the
 * command that installs them (the tests never skip).
 */
import { accessSync, constants } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";

export function requireProgram(name: "prometheus" | "promtool"): string {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(`'${name}' is not installed (or not on PATH); the metrics tests need a real Prometheus: apt-get install -y prometheus`);
}

/** A loopback port free right now (for programs that cannot report the port they bound). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
