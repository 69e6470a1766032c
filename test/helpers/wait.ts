/** Waiting on events without timing luck: every wait has a deadline and a clear failure. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

/**
 * Polls `check` until it returns true (or throws after `ms`). A check that never settles (a
 * request to a process that hangs) is given up at the deadline too, with the same message,
 * instead of holding the test until the runner's own timeout says nothing of what it waited for.
 */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000, what = "condition"): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    // A check still pending at the deadline fails with withTimeout's message (naming the time it was left).
    const result = check();
    if (typeof result === "boolean" ? result : await withTimeout(result, Math.max(1, deadline - Date.now()), what)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Collects `n` items pushed by a callback, resolving when all arrived. */
export function collector<T>(n: number): { push(item: T): void; done: Promise<T[]> } {
  const items: T[] = [];
  let resolve!: (v: T[]) => void;
  const done = new Promise<T[]>((r) => (resolve = r));
  return {
    push(item: T) {
      items.push(item);
      if (items.length === n) resolve(items);
    },
    done,
  };
}
