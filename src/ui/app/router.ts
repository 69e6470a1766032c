/**
 * Hash routing: `#/queues/%2F/orders` → route "/queues/:vhost/:name" with decoded params.
 * The hash keeps every page a plain static file (no server-side routes) and deep-linkable.
 */
import { useEffect, useState } from "preact/hooks";

export interface Match<R> {
  readonly route: R;
  readonly params: Record<string, string>;
}

/** Finds the first route whose pattern ("/queues/:vhost/:name") matches the hash path. */
export function matchRoute<R extends { readonly path: string }>(routes: readonly R[], hashPath: string): Match<R> | null {
  const segs = hashPath.split("/").filter((s, i) => i > 0 || s !== "");
  for (const route of routes) {
    const pat = route.path.split("/").filter((s, i) => i > 0 || s !== "");
    if (pat.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pat.length && ok; i++) {
      const p = pat[i] as string;
      const s = segs[i] as string;
      if (p.startsWith(":")) {
        try {
          params[p.slice(1)] = decodeURIComponent(s);
        } catch {
          ok = false;
        }
      } else ok = p === s;
    }
    if (ok) return { route, params };
  }
  return null;
}

/** The link to a page: href("queues", vhost, name) → "#/queues/%2F/name". */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join("/")}`;
}

export function navigate(to: string): void {
  location.hash = to.startsWith("#") ? to.slice(1) : to;
}

function currentPath(): string {
  const h = location.hash.replace(/^#/, "");
  return h === "" ? "/" : h;
}

/** The hash path, re-rendering on every change. */
export function useHashPath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const on = (): void => setPath(currentPath());
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return path;
}
