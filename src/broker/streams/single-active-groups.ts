/**
 * Single active consumer for streams (RabbitMQ 3.11+): subscriptions with
 * `single-active-consumer=true` and the same `name` on one stream form a group of which one is
 * active at a time. A plain stream's group keeps its first member active until it leaves; a
 * super stream partition's group (`super-stream` property) makes member (partition index mod
 * group size) active, so a super stream's partitions spread over its consumers. A member is told
 * with ConsumerUpdate; a member losing its turn answers first (so it can store its offset), then
 * the next is activated and answers with the offset it starts from.
 *
 * One registry per broker (Broker.streamGroups), so a group's state is decided in one place, the
 * node leading the stream: its local subscriptions and those of other workers' clients read over
 * the node link (src/node-link/served-stream-reads.ts) are members of the same group.
 */

export interface SacMember {
  /** Tells the client it is now active (or not); `answered` runs once it replied (or gave up waiting). */
  update(active: boolean, answered: () => void): void;
}

interface Group {
  readonly members: SacMember[];
  active: SacMember | null;
  /** A member is being deactivated: nothing else moves until it answered. */
  switching: SacMember | null;
  /** The partition's index in its super stream; -1 for a plain stream. */
  readonly partitionIndex: number;
}

export class SingleActiveGroups {
  private readonly groups = new Map<string, Group>();

  join(key: string, m: SacMember, partitionIndex: number): void {
    let g = this.groups.get(key);
    if (g === undefined) this.groups.set(key, (g = { members: [], active: null, switching: null, partitionIndex }));
    g.members.push(m);
    this.rebalance(key, g);
  }

  leave(key: string, m: SacMember): void {
    const g = this.groups.get(key);
    if (g === undefined) return;
    const i = g.members.indexOf(m);
    if (i >= 0) g.members.splice(i, 1);
    if (g.active === m) g.active = null;
    if (g.switching === m) g.switching = null;
    this.rebalance(key, g);
  }

  /** Whether `m` is its group's active member. */
  isActive(key: string, m: SacMember): boolean {
    return this.groups.get(key)?.active === m;
  }

  private rebalance(key: string, g: Group): void {
    if (g.members.length === 0 && g.switching === null) {
      this.groups.delete(key);
      return;
    }
    if (g.switching !== null || g.members.length === 0) return;
    if (g.partitionIndex < 0 && g.active !== null) return;
    const want = g.members[g.partitionIndex < 0 ? 0 : g.partitionIndex % g.members.length]!;
    if (g.active === want) return;
    const old = g.active;
    if (old !== null) {
      g.switching = old;
      g.active = null;
      old.update(false, () => {
        if (g.switching !== old) return;
        g.switching = null;
        this.rebalance(key, g);
      });
      return;
    }
    g.active = want;
    want.update(true, () => undefined);
  }
}
