/**
 * The UI's only way to the broker: the public management API under /api, with the session's
 * Authorization header on every request. `credentials: "omit"` keeps the browser from adding
 * cookies or cached Basic credentials and from popping its own login dialog on a 401.
 */
export class ApiError extends Error {
  constructor(readonly status: number, readonly error: string, readonly reason: string) {
    super(reason || error || `HTTP ${status}`);
    this.name = "ApiError";
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  readonly query?: Query;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** Builds an /api path from a template, URL-encoding each interpolated name (vhost "/" is %2F). */
export function apiPath(strings: TemplateStringsArray, ...names: string[]): string {
  let out = strings[0] ?? "";
  names.forEach((n, i) => {
    out += encodeURIComponent(n) + (strings[i + 1] ?? "");
  });
  return out;
}

function queryString(q: Query | undefined): string {
  if (!q) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === "") continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

export class Api {
  constructor(
    private readonly authorization: string,
    /** Called when the API answers 401: the login no longer holds (password changed, token expired). */
    private readonly onUnauthorized: () => void,
  ) {}

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: this.authorization, accept: "application/json", ...opts.headers };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.body);
    }
    let res: Response;
    try {
      res = await fetch(`/api${path}${queryString(opts.query)}`, { method, headers, body, credentials: "omit", cache: "no-store" });
    } catch (err) {
      throw new ApiError(0, "network_error", `Cannot reach the broker: ${(err as Error).message}`);
    }
    if (res.status === 401) this.onUnauthorized();
    const text = await res.text();
    let json: unknown;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    if (!res.ok) {
      const e = (json ?? {}) as { error?: unknown; reason?: unknown };
      throw new ApiError(res.status, String(e.error ?? res.statusText), typeof e.reason === "string" ? e.reason : JSON.stringify(e.reason ?? text));
    }
    return json as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>("GET", path, { query });
  }

  put(path: string, body: unknown = {}): Promise<unknown> {
    return this.request("PUT", path, { body });
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>("POST", path, { body });
  }

  del(path: string, headers?: Record<string, string>, query?: Query): Promise<unknown> {
    return this.request("DELETE", path, { headers, query });
  }
}

/** A login check without a session: whoami with the given Authorization header. */
export async function whoami(authorization: string): Promise<{ name: string; tags: string[]; timeoutMinutes?: number }> {
  const api = new Api(authorization, () => undefined);
  const me = await api.get<{ name: string; tags: string[] | string; login_session_timeout?: number }>("/whoami");
  const tags = Array.isArray(me.tags) ? me.tags : String(me.tags ?? "").split(",").filter(Boolean);
  const t = me.login_session_timeout;
  return { name: me.name, tags, ...(typeof t === "number" && t > 0 ? { timeoutMinutes: t } : {}) };
}

/** GET /api/auth (no login needed): whether the broker takes OAuth 2.0 logins for the UI. */
export async function oauthEnabled(): Promise<boolean> {
  const res = await fetch("/api/auth", { credentials: "omit", cache: "no-store", headers: { accept: "application/json" } });
  if (!res.ok) return false;
  const body = (await res.json()) as { oauth_enabled?: unknown; enable_uaa?: unknown };
  return body.oauth_enabled === true || body.enable_uaa === true;
}
