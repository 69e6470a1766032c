/**
 * How far each stream is committed on this node (docs/STREAMS.md, "Followers serve the stream
 * port"): a stream directory ("streams/<id>") → the offset after its last committed message. A
 * follower learns it from the leader's STREAM_COMMIT frames; a leader from its own store's
 * commits (the replication tap). Consumers served from this node's files read no further, so a
 * follower never shows a message a failover could still lose. One registry per node, kept across
 * its roles, so a consumer on a follower goes on reading when the node is elected.
 */
export class StreamCommits {
  private readonly ends = new Map<string, number>();
  private readonly watchers = new Map<string, Set<() => void>>();

  /** The offset readers may read up to (excluded); 0 while nothing is known. */
  get(dir: string): number {
    return this.ends.get(dir) ?? 0;
  }

  /** Only moves forward: committed messages stay committed through a leader change. */
  set(dir: string, next: number): void {
    if (next <= (this.ends.get(dir) ?? 0)) return;
    this.ends.set(dir, next);
    this.tell(dir);
  }

  /** The stream was deleted: its readers are told (they find its files gone). */
  dropped(dir: string): void {
    this.ends.delete(dir);
    this.tell(dir);
  }

  /** Calls `fn` at each change of `dir`; returns the function that stops it. */
  watch(dir: string, fn: () => void): () => void {
    let set = this.watchers.get(dir);
    if (set === undefined) this.watchers.set(dir, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.watchers.get(dir) === set) this.watchers.delete(dir);
    };
  }

  entries(): IterableIterator<[string, number]> {
    return this.ends.entries();
  }

  private tell(dir: string): void {
    const set = this.watchers.get(dir);
    if (set !== undefined) for (const fn of [...set]) fn();
  }
}
