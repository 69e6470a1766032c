/** Management API calls from tests: JSON in and out, basic auth as guest unless told. */
import type { TestBroker } from "./broker.js";

export interface ApiResponse {
  readonly status: number;
  readonly json: Record<string, unknown> | undefined;
}

export function managementClient(broker: () => TestBroker) {
  return async (method: string, path: string, body?: unknown, user = "guest:guest"): Promise<ApiResponse> => {
    const res = await fetch(`${broker().httpUrl}${path}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(user).toString("base64")}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
}
