/**
 * The idle session timeout (RabbitMQ's management.login_session_timeout, in minutes; 480, its
 * default, when /api/whoami names none): after that long without a key press, click, touch or
 * scroll the UI logs its user out. The last activity is kept in sessionStorage, so a reload, or a
 * tab left asleep overnight, is judged the same way as a tab left open.
 */
import { useEffect } from "preact/hooks";

export const DEFAULT_TIMEOUT_MINUTES = 480;
const KEY = "coney.activity";
/** Activity is written at most this often (a mouse wheel fires dozens of events a second). */
const WRITE_EVERY_MS = 5_000;
/** How often an open tab checks; a hidden tab checks again when shown. */
const CHECK_EVERY_MS = 15_000;
const EVENTS = ["keydown", "pointerdown", "wheel", "touchstart"] as const;

function lastActivity(): number {
  const v = Number(sessionStorage.getItem(KEY));
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/** Records activity now (at login, and on every user action while logged in). */
export function touchActivity(now = Date.now()): void {
  sessionStorage.setItem(KEY, String(now));
}

export function clearActivity(): void {
  sessionStorage.removeItem(KEY);
}

/** True when the last activity is older than the timeout (a session with no record is not). */
export function idleExpired(minutes: number, now = Date.now()): boolean {
  const last = lastActivity();
  return last > 0 && now - last > minutes * 60_000;
}

export const idleNotice = (minutes: number): string =>
  `You were logged out after ${minutes >= 60 && minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? "" : "s"}` : `${minutes} minute${minutes === 1 ? "" : "s"}`} without activity. Please log in again.`;

/** While `active`, tracks activity and calls `expire` once the user has been idle too long. */
export function useIdleTimeout(active: boolean, minutes: number, expire: () => void): void {
  useEffect(() => {
    if (!active) return;
    let written = 0;
    const onActivity = (): void => {
      const now = Date.now();
      if (now - written < WRITE_EVERY_MS) return;
      written = now;
      touchActivity(now);
    };
    const check = (): void => {
      if (!document.hidden && idleExpired(minutes)) expire();
    };
    for (const e of EVENTS) addEventListener(e, onActivity, { passive: true, capture: true });
    document.addEventListener("visibilitychange", check);
    const timer = setInterval(check, CHECK_EVERY_MS);
    check();
    return () => {
      for (const e of EVENTS) removeEventListener(e, onActivity, { capture: true });
      document.removeEventListener("visibilitychange", check);
      clearInterval(timer);
    };
  }, [active, minutes]);
}
