/**
 * What every page needs, passed down by context instead of a global: the API client, who is
 * logged in (for tag-based hiding of actions), the selected virtual host ("" = all) and the
 * live refresh period.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
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
  /** Live charts' points by chart id, kept while the tab is open. */
  readonly charts: Map<string, Array<Array<number | null>>>;
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

/** May change things in vhosts it has permissions for (not a read-only monitoring-only view). */
export function canManage(tags: readonly string[]): boolean {
  return hasTag(tags, "management", "policymaker", "monitoring");
}
