/**
 * The definitions a single node takes back from `coney --workers N` (workers-to-single-node.ts).
 * Every worker keeps the whole topology in its own definitions file (the topology relay applies
 * every change on every worker), so they agree once the workers have stopped cleanly; a worker
 * killed mid-change may lack the last one. The merge takes worker w0's file and adds, from the
 * others, each item (queue, exchange, binding, user, policy, …) w0 lacks, so nothing any worker
 * knew is lost; `added` counts those (0 when they agree). A queue's recorded `group` is dropped:
 * it is the workers' hash group, which a single node does not have (it takes its own).
 */
import type { Definitions } from "../broker/index.js";

/** What names an item within its section: the fields that are present of these (a binding's arguments too). */
const IDENTITY = ["component", "vhost", "name", "user", "exchange", "source", "destination", "destination_type", "routing_key", "arguments"] as const;

export interface MergedDefinitions {
  readonly definitions: Definitions;
  /** Items found on another worker but not on the first: 0 when every worker agreed. */
  readonly added: number;
}

function identity(section: string, item: unknown): string {
  if (item === null || typeof item !== "object") return JSON.stringify(item);
  const o = item as Record<string, unknown>;
  // Only a binding is named by its arguments (two bindings may differ by them alone).
  const fields = IDENTITY.filter((f) => f in o && (f !== "arguments" || section === "bindings"));
  return fields.length === 0 ? JSON.stringify(o) : JSON.stringify(fields.map((f) => o[f]));
}

function withoutGroup(item: unknown): unknown {
  if (item === null || typeof item !== "object" || !("group" in item)) return item;
  const { group: _g, ...rest } = item as Record<string, unknown>;
  return rest;
}

/** The first worker's definitions with every other worker's missing items added (see above). */
export function mergeWorkerDefinitions(all: readonly Definitions[]): MergedDefinitions {
  if (all.length === 0) return { definitions: {}, added: 0 };
  const merged: Record<string, unknown> = { ...all[0] };
  let added = 0;
  const sections = new Set(all.flatMap((d) => Object.keys(d).filter((k) => Array.isArray((d as Record<string, unknown>)[k]))));
  for (const section of sections) {
    const items: unknown[] = [];
    const seen = new Set<string>();
    for (const [i, d] of all.entries()) {
      for (const item of ((d as Record<string, unknown>)[section] as unknown[] | undefined) ?? []) {
        const key = identity(section, item);
        if (seen.has(key)) continue;
        seen.add(key);
        items.push(section === "queues" ? withoutGroup(item) : item);
        if (i > 0) added++;
      }
    }
    merged[section] = items;
  }
  return { definitions: merged as Definitions, added };
}
