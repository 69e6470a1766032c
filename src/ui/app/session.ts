/**
 * The login kept for this browser tab's session: the Authorization header value and who it is.
 * Stored in sessionStorage only (gone when the tab closes, never sent by the browser on its own):
 * the API takes credentials only from the Authorization header, so there is no cookie and no
 * CSRF surface.
 */
export interface Session {
  /** The full Authorization header value: "Basic …" or "Bearer …". */
  readonly authorization: string;
  readonly user: string;
  readonly tags: readonly string[];
  /** Minutes without activity before the UI logs out (whoami's login_session_timeout, or RabbitMQ's 480). */
  readonly timeoutMinutes?: number;
}

const KEY = "coney.session";

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Session;
    return typeof s.authorization === "string" && typeof s.user === "string" && Array.isArray(s.tags) ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** Basic credentials as RFC 7617 says: UTF-8 bytes of "user:password", base64. */
export function basicAuthorization(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return `Basic ${btoa(bin)}`;
}

/** Per-tab UI preferences (the selected virtual host, list settings), also sessionStorage. */
export function loadPref<T>(key: string, fallback: T): T {
  try {
    const raw = sessionStorage.getItem(`coney.pref.${key}`);
    return raw === null ? fallback : (JSON.parse(raw) as T);
  } catch {
    return fallback;
  }
}

export function savePref(key: string, value: unknown): void {
  sessionStorage.setItem(`coney.pref.${key}`, JSON.stringify(value));
}
