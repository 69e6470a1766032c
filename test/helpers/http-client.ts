/** A management API client for tests: plain fetch with HTTP Basic, JSON in and out. */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read records of many shapes; they assert on what they read.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export type Api = (method: string, path: string, body?: unknown, credentials?: string) => Promise<ApiResponse>;

/** `credentials` is "user:password" (guest:guest by default). */
export function apiClient(baseUrl: () => string): Api {
  return async (method, path, body, credentials = "guest:guest") => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(credentials).toString("base64")}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
  };
}
