/**
 * A small client of the broker's management HTTP API over node:http / node:https. Every answer
 * comes back as {status, body}; only "could not reach the broker" is thrown, as rabbitmqctl's
 * exit 69 with the address that failed.
 */
import http from "node:http";
import https from "node:https";
import type { ConnectionOptions } from "./connection-options.js";
import { CliError, EXIT } from "./exit-codes.js";

export interface ApiResponse {
  readonly status: number;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: unknown;
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Other credentials than the connection's (authenticate_user). */
  readonly auth?: { username: string; password: string };
}

export class ManagementClient {
  constructor(readonly conn: ConnectionOptions) {}

  get address(): string {
    return `${this.conn.host}:${this.conn.port}`;
  }

  /** `/api/...` with each path segment given separately, so names like "/" are encoded. */
  static path(...segments: string[]): string {
    return "/api/" + segments.map((s) => encodeURIComponent(s)).join("/");
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const { username, password } = options.auth ?? this.conn;
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string> = {
      accept: "application/json",
      // The broker's audit trail tells coneyctl's changes from other HTTP clients' by this.
      "user-agent": "coneyctl/1",
      authorization: "Basic " + Buffer.from(`${username}:${password}`).toString("base64"),
      ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
      ...options.headers,
    };
    const c = this.conn;
    const base = { host: c.host, port: c.port, method, path, headers, timeout: c.timeoutMs };
    return new Promise((resolve, reject) => {
      const onResponse = (res: http.IncomingMessage): void => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("error", (err) => reject(this.unreachable(err)));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown = undefined;
          if (text.length > 0) {
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      };
      const req = c.tls
        ? https.request({ ...base, ca: c.ca, cert: c.cert, key: c.key, rejectUnauthorized: !c.insecure }, onResponse)
        : http.request(base, onResponse);
      req.on("timeout", () => req.destroy(Object.assign(new Error(`no answer within ${c.timeoutMs / 1000} seconds`), { code: "ETIMEDOUT" })));
      req.on("error", (err) => reject(this.unreachable(err)));
      req.end(payload);
    });
  }

  private unreachable(err: Error & { code?: string }): CliError {
    const cause = err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
    return new CliError(EXIT.unavailable, `Could not connect to the broker at ${this.address} (${cause})`);
  }
}
