/**
 * The real Prometheus programs the metrics tests drive. Missing programs fail the test with the
 * command that installs them (the tests never skip).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { eventually, withTimeout } from "../helpers/wait.js";

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

interface QueryResult {
  readonly status: string;
  readonly data: { readonly result: Array<{ readonly metric: Record<string, string>; readonly value: [number, string] }> };
}

export type Series = QueryResult["data"]["result"];

/** A real Prometheus on loopback scraping `targets` (host:port) every second as job "coney". */
export class RunningPrometheus {
  private readonly dir = mkdtempSync(join(tmpdir(), "coney-prometheus-"));
  private proc: ChildProcess | null = null;
  private url = "";
  log = "";

  /**
   * `metricsPath`: the scraped path (Prometheus's default /metrics; the aggregate's /metrics/cluster).
   * `intervalS`: the scrape interval, which is also the scrape timeout (an aggregate waits up to its
   * 1 s bound for a silent node).
   */
  async start(targets: readonly string[], metricsPath = "/metrics", intervalS = 1): Promise<void> {
    const binary = requireProgram("prometheus");
    const list = targets.map((t) => `"${t}"`).join(", ");
    writeFileSync(
      join(this.dir, "prometheus.yml"),
      ["global:", `  scrape_interval: ${intervalS}s`, "  evaluation_interval: 1s", "scrape_configs:", "  - job_name: coney", `    metrics_path: "${metricsPath}"`, "    static_configs:", `      - targets: [${list}]`, ""].join("\n"),
    );
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const p = spawn(binary, [`--config.file=${join(this.dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(this.dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"], { stdio: ["ignore", "ignore", "pipe"] });
    this.proc = p;
    p.stderr!.on("data", (d: Buffer) => (this.log += d.toString()));
    p.on("exit", (code) => (this.log += `\n[prometheus exited with ${code}]`));
  }

  async query(promql: string): Promise<Series> {
    const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as QueryResult;
    if (body.status !== "success") throw new Error(`${promql}: ${JSON.stringify(body)}`);
    return body.data.result;
  }

  /** Polls a query until `check` accepts its series (Prometheus scrapes every second). */
  async until(promql: string, what: string, check: (r: Series) => boolean, ms = 30_000): Promise<Series> {
    let last = "";
    let got: Series = [];
    await eventually(
      async () => {
        try {
          got = await this.query(promql);
          last = JSON.stringify(got);
          return check(got);
        } catch (err) {
          last = String(err); // Prometheus still starting
          return false;
        }
      },
      ms,
      `${promql}: ${what} (last answer: ${last}; prometheus log: ${this.log})`,
    );
    return got;
  }

  /** Polls a query until its single value equals `want`. */
  async untilValue(promql: string, want: string): Promise<void> {
    await this.until(promql, `= ${want}`, (r) => r.length === 1 && r[0]!.value[1] === want);
  }

  async close(): Promise<void> {
    const p = this.proc;
    if (p && p.exitCode === null) {
      const exited = new Promise((resolve) => p.once("exit", resolve));
      p.kill("SIGTERM");
      await withTimeout(exited, 10_000, "prometheus to stop").catch(() => p.kill("SIGKILL"));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
