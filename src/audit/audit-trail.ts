/**
 * Coney's audit trail: every configuration change the broker announces (users, permissions,
 * topic permissions, vhosts, policies and operator policies, parameters and global parameters,
 * limits, definitions imports), refused ones included, becomes an AuditEntry in the AuditLog.
 * It listens from after the node restored its definitions, so a restart's replay is not
 * recorded again. The management API reads it (src/http/routes/audit.ts) through `query`.
 */
import type { Broker } from "../broker/index.js";
import { auditEntryOf, type AuditEntry } from "./audit-entry.js";
import type { AuditLog } from "./audit-log.js";

/** Exact-match filters of GET /api/coney/audit; `since`/`until` bound `ts` (ms, or ISO time). */
export interface AuditFilter {
  readonly user?: string;
  readonly action?: string;
  readonly vhost?: string;
  readonly source?: string;
  readonly result?: string;
  readonly object?: string;
  readonly since?: number;
  readonly until?: number;
}

export class AuditTrail {
  private nextId: number;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly log: AuditLog, private readonly node: string) {
    this.nextId = log.lastId + 1;
  }

  /** Starts recording the broker's changes. */
  attach(broker: Broker): void {
    this.unsubscribe = broker.events.subscribe((e) => {
      const entry = auditEntryOf(e, this.nextId, this.node);
      if (entry === null) return;
      this.nextId++;
      this.log.append(entry);
    });
  }

  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Matching entries, newest first. */
  query(filter: AuditFilter = {}): AuditEntry[] {
    const out: AuditEntry[] = [];
    const all = this.log.list();
    for (let i = all.length - 1; i >= 0; i--) {
      const e = all[i]!;
      if (matches(e, filter)) out.push(e);
    }
    return out;
  }

  /** The newest entry that matches, or null: the explainer's link to the grant it shows. */
  latest(filter: AuditFilter): AuditEntry | null {
    const all = this.log.list();
    for (let i = all.length - 1; i >= 0; i--) if (matches(all[i]!, filter)) return all[i]!;
    return null;
  }
}

function matches(e: AuditEntry, f: AuditFilter): boolean {
  return (
    (f.user === undefined || e.user === f.user) &&
    (f.action === undefined || e.action === f.action) &&
    (f.vhost === undefined || e.vhost === f.vhost) &&
    (f.source === undefined || e.source === f.source) &&
    (f.result === undefined || e.result === f.result) &&
    (f.object === undefined || e.name === f.object) &&
    (f.since === undefined || e.ts >= f.since) &&
    (f.until === undefined || e.ts <= f.until)
  );
}
