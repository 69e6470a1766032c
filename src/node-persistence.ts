/**
 * What a node keeps across restarts, chosen by the composition root (start-broker.ts):
 * - on disk, under the data dir: the message store (src/store) is the broker's queue journal and
 *   the definitions file its definitions sink; saved definitions are restored and messages
 *   recovered at start;
 * - nothing (`inMemory`: a test broker, a throwaway CI service): the same Broker with no journal
 *   (persistent messages live in memory, and are confirmed once routed, as a transient one is)
 *   and no definitions sink. No file is read or written, no directory is created.
 * The domain has no branch that tells the two apart: it only sees a journal or none.
 * On disk, the queue groups (store/queue-groups-file.ts) decide the layout: one store, as always,
 * for one group; one store per group, behind one journal (store/grouped-journal.ts), for several.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bootstrapDefaults, exportDefinitions, importDefinitions, VERSION, type Broker, type Definitions, type QueueJournal, type ResourceAlarms } from "./broker/index.js";
import type { ConeyConfig } from "./config/config.js";
import type { Logger } from "./logging/logger.js";
import { DefinitionsFile } from "./store/definitions-file.js";
import { MessageStore } from "./store/message-store.js";
import type { MessageStoreOptions } from "./store/message-store-options.js";
import type { StoreReplica } from "./store/store-replica.js";
import { recoverMessages, type RecoveryReport } from "./store/store-recovery.js";
import { GroupedJournal } from "./store/grouped-journal.js";
import { groupMessagesDir, resolveQueueGroups } from "./store/queue-groups-file.js";
import { AUDIT_DIR, AuditLog, type AuditTap } from "./audit/audit-log.js";
import { AuditTrail } from "./audit/audit-trail.js";

export interface NodePersistence {
  /** The journal the broker is built with; null when nothing is stored. */
  readonly journal: QueueJournal | null;
  /** Restores saved definitions into `broker` (or creates the defaults), loads `loadDefinitions`, recovers messages. */
  open(broker: Broker): void;
  /** Writes what is pending and closes the files. */
  close(): Promise<void>;
  /** The audit trail (src/audit): recording from the end of open(), kept under the data dir (or in memory). */
  readonly audit: AuditTrail;
}

/**
 * Stores whose queue groups come and go (`coney --workers N`: src/workers/worker-group-stores.ts):
 * the broker's journal is theirs, not a store of the data dir, and a group's messages are
 * recovered when the group is opened here, not at boot.
 */
export interface MovableGroupStores {
  readonly journal: QueueJournal;
  /** The definitions are restored: recovers what is open now (the node's own store); `flushDefinitions` runs before each fsync of every store, now and later. */
  opened(flushDefinitions: () => boolean): RecoveryReport;
  close(): Promise<void>;
}

export interface PersistenceOptions {
  readonly config: ConeyConfig;
  readonly logger: Logger;
  readonly alarms: ResourceAlarms;
  readonly storeOptions?: Partial<Omit<MessageStoreOptions, "dir" | "logger">>;
  /** A cluster leader's replication: told every byte the store and definitions write. */
  readonly replica?: StoreReplica & AuditTap & { definitionsWritten(json: string): void };
  readonly groupStores?: MovableGroupStores;
}

export function openPersistence(o: PersistenceOptions): NodePersistence {
  return o.config.inMemory ? inMemory(o) : onDisk(o);
}

/** RabbitMQ's load_definitions: imported at every boot, merged over what was saved. */
function loadConfiguredDefinitions(broker: Broker, { config, logger }: PersistenceOptions): void {
  if (!config.loadDefinitions) return;
  importDefinitions(broker, JSON.parse(readFileSync(config.loadDefinitions, "utf8")) as Definitions);
  logger.info("definitions loaded", { file: config.loadDefinitions });
}

/** The audit log with the configured retention: in `dir`, or in memory when null. */
function auditLog(config: ConeyConfig, logger: Logger, dir: string | null): AuditLog {
  const log = new AuditLog(dir, { maxBytes: config.auditMaxBytes, maxAgeMs: config.auditMaxAge * 1000, fileSizeLimit: config.auditFileSizeLimit, syncIntervalMs: config.auditSyncInterval });
  log.onWriteError = (err) => logger.error("audit trail could not be written", { err });
  return log;
}

function inMemory(o: PersistenceOptions): NodePersistence {
  const log = auditLog(o.config, o.logger, null);
  const audit = new AuditTrail(log, o.config.nodeName);
  return {
    journal: null,
    audit,
    open(broker) {
      bootstrapDefaults(broker, o.config);
      loadConfiguredDefinitions(broker, o);
      audit.attach(broker);
    },
    async close() {
      audit.detach();
    },
  };
}

function onDisk(o: PersistenceOptions): NodePersistence {
  const { config, logger, alarms, replica, groupStores } = o;
  mkdirSync(config.dataDir, { recursive: true });
  const groups = groupStores ? groupStores.journal.groups : resolveQueueGroups(config.dataDir, config.queueGroups);
  // A cluster replicates one store (src/cluster); per-group replication is a later step (docs/CLUSTERING.md).
  if (replica && groups > 1) throw new Error(`the data dir ${config.dataDir} has ${groups} queue groups, and a cluster node replicates only one message store yet (docs/CLUSTERING.md, "Build order and status")`);
  const stores = groupStores ? [] : Array.from({ length: groups }, (_, g) => new MessageStore({ dir: groupMessagesDir(config.dataDir, groups, g), logger, segmentBytes: config.msgStoreFileSizeLimit, ...o.storeOptions }));
  const store = stores[0]!;
  // One group: the store itself is the journal, so a single node runs exactly as before groups.
  const journal: QueueJournal = groupStores ? groupStores.journal : groups === 1 ? store : new GroupedJournal(stores);
  let definitions: DefinitionsFile | null = null;
  const log = auditLog(config, logger, join(config.dataDir, AUDIT_DIR));
  log.open();
  const audit = new AuditTrail(log, config.nodeName);
  return {
    journal,
    audit,
    open(broker) {
      const file = new DefinitionsFile(config.dataDir, () => exportDefinitions(broker, { durableOnly: true, version: VERSION, withGroups: true }));
      definitions = file;
      file.failures = {
        failed: (err) => {
          logger.error("definitions could not be saved; the previous file stays in place and the save is retried", { err, file: file.path });
          alarms.diskWriteFailed("definitions");
        },
        recovered: () => {
          logger.info("definitions saved again", { file: file.path });
          alarms.diskWriteRecovered("definitions");
        },
      };
      const saved = file.read();
      if (saved) {
        // Restoring writes nothing back: the file already holds exactly this.
        file.muted = true;
        importDefinitions(broker, saved);
        file.muted = false;
        logger.info("definitions restored", { file: file.path, vhosts: broker.vhosts.size, users: broker.users.list().length });
      } else {
        bootstrapDefaults(broker, config);
      }
      broker.definitions = file;
      loadConfiguredDefinitions(broker, o);
      file.put();
      // Messages come back after the definitions: only durable queues that still exist get theirs.
      // A confirmed message must not outlive the declaration of its queue: definitions go to disk first.
      const recovered = groupStores ? groupStores.opened(() => file.flush()) : recoverGroups(stores);
      for (const v of broker.vhosts.values()) for (const q of v.queues.values()) q.recovered();
      for (const s of stores) s.beforeSync = () => file.flush();
      if (replica) {
        // Attached after recovery: followers get the files as recovery left them, by a full sync.
        store.replica = replica;
        store.streams.announceCommitted();
        file.onWrite = (json) => replica.definitionsWritten(json);
        log.tap = replica;
      }
      if (recovered.segments > 0) logger.info("messages recovered", { ...recovered, ...(groups > 1 ? { queue_groups: groups } : {}) });
      // After the restore: replaying saved definitions is not a change anyone made.
      audit.attach(broker);
    },
    async close() {
      audit.detach();
      log.close();
      await Promise.all(stores.map((s) => s.close()));
      await groupStores?.close();
      for (const [g, s] of stores.entries()) logger.info("message store closed", { ...s.stats, ...(groups > 1 ? { group: g } : {}) });
      definitions?.flush();
    },
  };
}

/** Each group's store recovered in turn (a queue's records are only in its group's store); the counts summed. */
function recoverGroups(stores: readonly MessageStore[]): RecoveryReport {
  const total = recoverMessages(stores[0]!);
  for (const s of stores.slice(1)) {
    const r = recoverMessages(s);
    for (const k of Object.keys(total) as (keyof RecoveryReport)[]) total[k] += r[k];
  }
  return total;
}
