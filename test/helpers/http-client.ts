/** A management API client for tests: plain fetch with HTTP Basic, JSON in and out. */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read records of many shapes; they assert on what they read.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

/** A request body sent as it is, not as JSON (for malformed-body tests). */
export class RawBody {
  constructor(readonly text: string) {}
}

export type Api = (method: string, path: string, body?: unknown, credentials?: string, headers?: Record<string, string>) => Promise<ApiResponse>;

/** `credentials` is "user:password" (guest:guest by default); `headers` are added to the request's. */
export function apiClient(baseUrl: () => string): Api {
  return async (method, path, body, credentials = "guest:guest", headers = {}) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(credentials).toString("base64")}`, "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: body instanceof RawBody ? body.text : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
  };
}
