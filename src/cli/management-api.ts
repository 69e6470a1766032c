/**
 * The management API as commands use it: a request, and the translation of an answer the
 * command has no specific meaning for into rabbitmqctl's catch-all failure (exit 69) carrying
 * the broker's own reason.
 */
import { CliError, EXIT } from "./exit-codes.js";
import { ManagementClient, type ApiResponse, type RequestOptions } from "./management-client.js";

export class ManagementApi {
  constructor(readonly client: ManagementClient) {}

  send(method: string, path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.client.request(method, path, options);
  }

  /** GET that must succeed; anything else is a failure. */
  async get<T>(path: string): Promise<T> {
    const res = await this.send("GET", path);
    return this.expectOk(res).body as T;
  }

  /** True when the path names an existing object (200), false on 404, a failure otherwise. */
  async exists(path: string): Promise<boolean> {
    const res = await this.send("GET", path);
    if (res.status === 404) return false;
    this.expectOk(res);
    return true;
  }

  expectOk(res: ApiResponse): ApiResponse {
    if (res.status >= 200 && res.status < 300) return res;
    throw this.failure(res);
  }

  failure(res: ApiResponse): CliError {
    const reason = reasonOf(res);
    if (res.status === 401) {
      return new CliError(EXIT.unavailable, `Could not authenticate to the broker at ${this.client.address} as user "${this.client.conn.username}": ${reason}`);
    }
    return new CliError(EXIT.unavailable, reason);
  }
}

/** The `reason` of RabbitMQ's {"error","reason"} body, or the status when there is none. */
export function reasonOf(res: ApiResponse): string {
  const b = res.body;
  if (b !== null && typeof b === "object" && "reason" in b && typeof b.reason === "string") return b.reason;
  if (typeof b === "string" && b.length > 0) return b;
  return `the broker answered HTTP ${res.status}`;
}
