/**
 * What every page needs, passed down by context instead of a global: the API client, who is
 * logged in and what it may do (tags and permissions, for offering only permitted actions), the
 * selected virtual host ("" = all) and the live refresh period.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Access } from "./access.js";
import type { Api } from "./api.js";

export interface AppState {
  readonly api: Api;
  readonly user: string;
  readonly tags: readonly string[];
  readonly vhost: string;
  setVhost(vhost: string): void;
  /** Live refresh period in ms; 0 = paused by the operator. */
  readonly refreshMs: number;
  logout(): void;
  /** What the user may do (GET /api/coney/my-access), loaded on every page change; null until it answers. */
  readonly access: Access | null;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const s = useContext(AppContext);
  if (!s) throw new Error("useApp outside AppContext");
  return s;
}

/** RabbitMQ's management tags: which ones a user holds decides what the UI offers. */
export function hasTag(tags: readonly string[], ...wanted: string[]): boolean {
  return tags.includes("administrator") || wanted.some((t) => tags.includes(t));
}

/** RabbitMQ closes a connection for its own user or for an administrator (monitors may only look). */
export function mayClose(app: Pick<AppState, "user" | "tags">, owner: string): boolean {
  return owner === app.user || app.tags.includes("administrator");
}
