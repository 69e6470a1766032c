/**
 * A CONNECT whose leftovers are queues led by another worker (`coney --workers N`): a clean
 * start's session queues, and a parked will of this client id. Deleting those is a round trip to
 * their leader, so it is done before the session opens, while the packets behind the CONNECT are
 * held as for a token login (mqtt-connection.ts); the session then finds only local queues, or
 * none, and opens as on one node. First the id's old connection on another worker is taken over
 * (closed there: one IPC round trip per CONNECT under workers). Invariant: on a single node the
 * outcome is returned as it came (synchronous when it was), so it pays a few map lookups per CONNECT.
 */
import { clientContext, deleteQueueAsync } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import type { MqttNode } from "./mqtt-node.js";
import type { LoginOutcome } from "./mqtt-login.js";
import { RC } from "./mqtt-reason-codes.js";
import { willQueueName } from "./mqtt-will.js";
import { QOS_LEVELS, sessionQueueName } from "./mqtt-session.js";

const NO_FLAGS = { ifUnused: false, ifEmpty: false };

/** The login outcome, after deleting on their leaders the queues this CONNECT will remove. */
export function afterRemoteLeftovers(node: MqttNode, outcome: LoginOutcome | Promise<LoginOutcome>, clientId: string, cleanStart: boolean, owner: object, peer: string, tookOver = false): LoginOutcome | Promise<LoginOutcome> {
  if (outcome instanceof Promise) return outcome.then((o) => afterRemoteLeftovers(node, o, clientId, cleanStart, owner, peer, tookOver));
  if (!outcome.ok) return outcome;
  const { vhost, permissions } = outcome.login;
  // The old connection of this id on another worker goes first, with its exclusive queues (a
  // clean session's), as on one node, where the takeover precedes the session's open.
  const takeOver = tookOver ? null : node.takeOverElsewhere(vhost.name, clientId);
  if (takeOver !== null) return takeOver.then(() => afterRemoteLeftovers(node, outcome, clientId, cleanStart, owner, peer, true));
  const broker = node.broker;
  const names = cleanStart ? [willQueueName(clientId), ...QOS_LEVELS.map((qos) => sessionQueueName(clientId, qos))] : [willQueueName(clientId)];
  const remote = names.filter((n) => vhost.queues.get(n)?.leadsElsewhere === true);
  if (remote.length === 0) return outcome;
  const ctx = clientContext(permissions, owner, "mqtt", peer);
  return Promise.all(remote.map((n) => deleteQueueAsync(broker, ctx, vhost.name, n, NO_FLAGS).catch(goneAlready))).then(
    () => outcome,
    (err: unknown): LoginOutcome => ({ ok: false, reasonCode: RC.serverUnavailable, why: `a session queue led by another worker could not be deleted: ${err instanceof Error ? err.message : String(err)}` }),
  );
}

/** A leftover deleted meanwhile (by the takeover, its holder's close) is what was wanted; anything else is a failure. */
function goneAlready(err: unknown): number {
  if (err instanceof BrokerError && err.kind === "notFound") return 0;
  throw err;
}
