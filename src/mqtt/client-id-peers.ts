/**
 * The other brokers an MQTT client id must be unique across: the workers of `coney --workers N`
 * (src/workers carries it over IPC). MQTT 3.1.1 §3.1.4-2: a CONNECT with a client id already
 * connected disconnects the old connection, wherever it is; the worker holding it closes it as it
 * would locally (MQTT 5: reason 0x8E, session taken over).
 *
 * Two claims of one id on two workers at once are ordered by their time (then by node name), so
 * exactly one connection keeps the id: each worker closes its holder only for a later claim.
 */
export interface ClientIdClaim {
  readonly vhost: string;
  readonly clientId: string;
  /** When it was claimed (ms since the epoch). */
  readonly at: number;
  /** The claiming node's name: breaks a tie of `at`. */
  readonly node: string;
}

export interface ClientIdPeers {
  /** This node's connection now holds the client id: every other node closes its own holder of it. */
  claimed(claim: ClientIdClaim): void;
  /** Another node's connection claimed a client id. */
  onClaimed(handler: (claim: ClientIdClaim) => void): void;
  /**
   * As `claimed`, answered: resolves once every other node closed its holder of the id that
   * claimed it earlier (its exclusive queues deleted there), or did not answer in time. A CONNECT
   * waits for it before it looks at the queues the old session left, as on one node, where the
   * takeover comes first. Absent: the transport cannot answer.
   */
  takeOver?(claim: ClientIdClaim): Promise<void>;
}

/** Whether `later` supersedes `earlier` (a strict order: equal times go to the greater node name). */
export function supersedes(later: ClientIdClaim, earlier: ClientIdClaim): boolean {
  return later.at > earlier.at || (later.at === earlier.at && later.node > earlier.node);
}
