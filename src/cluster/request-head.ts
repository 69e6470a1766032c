/**
 * A request as a follower's own health checks see it (local-health.ts): its method, its path
 * without the query string, and its headers (names in lower case). follower-http.ts builds it
 * from each request it serves.
 */
export interface RequestHead {
  readonly method: string;
  /** The path without its query string. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>;
}
