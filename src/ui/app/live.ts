/**
 * Live data: load now, then again every refresh period while the tab is visible. The API has no
 * statistics lag, so each poll shows the broker as it is. Polls never overlap (the next is
 * scheduled when the previous ends), stop when the page unmounts, pause while the tab is hidden
 * (no load on the broker from a background tab) and resume at once when it is shown again.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { useApp } from "./app-context.js";

export interface Live<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  /** True until the first answer (or error). */
  readonly loading: boolean;
  /** Load again now (after an action changed something). */
  reload(): void;
}

export function useLive<T>(load: () => Promise<T>, deps: readonly unknown[], opts: { live?: boolean } = {}): Live<T> {
  const { refreshMs } = useApp();
  const live = opts.live ?? true;
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const tick = useRef<() => void>(() => undefined);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inFlight = false;
    setState((s) => ({ ...s, loading: s.data === undefined }));
    const run = async (): Promise<void> => {
      if (stopped || inFlight) return;
      clearTimeout(timer);
      inFlight = true;
      try {
        const data = await loadRef.current();
        if (!stopped) setState({ data, error: undefined, loading: false });
      } catch (error) {
        if (!stopped) setState((s) => ({ data: s.data, error, loading: false }));
      } finally {
        inFlight = false;
      }
      schedule();
    };
    const schedule = (): void => {
      if (stopped || !live || refreshMs <= 0 || document.hidden) return;
      timer = setTimeout(() => void run(), refreshMs);
    };
    const onVisibility = (): void => {
      if (document.hidden) clearTimeout(timer);
      else void run();
    };
    tick.current = () => void run();
    document.addEventListener("visibilitychange", onVisibility);
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
    // The caller's deps decide when to start over (a different queue, a different page).
  }, [...deps, refreshMs, live]);

  const reload = useCallback(() => tick.current(), []);
  return { ...state, reload };
}
