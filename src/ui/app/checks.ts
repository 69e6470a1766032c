/** The broker's decisions about a page's own queues and exchanges (see access.ts). */
import type { Checks } from "./access.js";
import { useApp } from "./app-context.js";
import { useLive, type Live } from "./live.js";

/**
 * The broker's decisions for a page's queues and exchanges in one vhost, refreshed with the page.
 * `key` changes when the names do (the names themselves are built each render).
 */
export function useChecks(vhost: string, queues: readonly string[], exchanges: readonly string[]): Live<Checks> {
  const { api } = useApp();
  const key = JSON.stringify([vhost, queues, exchanges]);
  return useLive(() => {
    // Built here, not with the client's query helper: that one drops empty values, and the
    // empty name (the default exchange) is a real question.
    const q = new URLSearchParams([["vhost", vhost], ...queues.map((n): [string, string] => ["queue", n]), ...exchanges.map((n): [string, string] => ["exchange", n])]);
    return api.get<{ checks: Checks }>(`/coney/my-access?${q.toString()}`).then((a) => a.checks);
  }, [key]);
}
