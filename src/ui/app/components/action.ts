/**
 * Running a user action (delete, purge, publish…): busy state, the outcome shown next to the
 * form, and a reload of the page's live data afterwards.
 */
import { useState } from "preact/hooks";

export interface Action {
  readonly busy: boolean;
  readonly error: unknown;
  readonly done: string;
  run(fn: () => Promise<string | void>): Promise<boolean>;
  clear(): void;
}

export function useAction(after?: () => void): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState("");
  return {
    busy,
    error,
    done,
    clear: () => {
      setError(undefined);
      setDone("");
    },
    run: async (fn) => {
      setBusy(true);
      setError(undefined);
      setDone("");
      try {
        const msg = await fn();
        setDone(msg ?? "");
        after?.();
        return true;
      } catch (err) {
        setError(err);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}
