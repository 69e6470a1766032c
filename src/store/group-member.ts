/**
 * What a queue group's message store tells the journal that groups it (grouped-journal.ts):
 * that it appended, and that a flush synced everything it had appended. A lone store (one group,
 * the default) has no member, and pays one null check per append for the possibility.
 */
export interface GroupMember {
  /** Its queue group (the failure path reports lost records with it). */
  readonly group: number;
  /** A record (or a stream message) was appended to this group's store. */
  appended(): void;
  /** A flush synced this store through everything appended so far. */
  allSynced(): void;
}
