/**
 * /api/overview's part of the nodes that did not answer (issue 42, "operators see one broker";
 * docs/CLUSTERING.md, "Counts of a queue led elsewhere"). Under `coney --workers N` and in a
 * spread cluster the overview's queue figures are summed over the nodes, each counting the queues
 * it leads, fresh (whole-records.ts). A node that did not answer within the bound (stopped, busy,
 * its link down) left its queues out: the totals fell by its queues' messages and the queue count
 * by its queues, and nothing said so. Its queues are counted here instead from the counts this
 * node last had from it (its RemoteQueues), and the overview says the figures are partly stale,
 * as a queue's record does (`counts_stale`).
 */
import type { Broker } from "../broker/index.js";
import type { OverviewScope } from "./overview-scope.js";
import { queueCounters } from "./records.js";

export interface SilentLeadersPart {
  /** The nodes leading queues of the scope that did not answer, by name. */
  readonly nodes: readonly string[];
  readonly queues: number;
  readonly consumers: number;
  readonly messages: number;
  readonly messages_ready: number;
  readonly messages_unacknowledged: number;
}

/** The last known figures of the scope's queues led by nodes not in `answered`; null when every leader answered. */
export function silentLeadersPart(b: Broker, scope: OverviewScope, answered: ReadonlySet<string>): SilentLeadersPart | null {
  const nodes = new Set<string>();
  let queues = 0, consumers = 0, messages = 0, ready = 0, unacked = 0;
  for (const v of b.vhosts.values()) {
    // A monitor counts every vhost (overview-scope.ts), another user those it holds a permission in.
    if (!scope.monitor && !scope.hasVhost(v.name)) continue;
    for (const q of v.queues.values()) {
      const leader = q.leaderNode;
      if (!q.leadsElsewhere || leader === null || answered.has(leader)) continue;
      nodes.add(leader);
      queues++;
      consumers += q.consumerCount;
      const c = queueCounters(q);
      messages += c["messages"]!;
      ready += c["messages_ready"]!;
      unacked += c["messages_unacknowledged"]!;
    }
  }
  if (nodes.size === 0) return null;
  return { nodes: [...nodes].sort(), queues, consumers, messages, messages_ready: ready, messages_unacknowledged: unacked };
}
