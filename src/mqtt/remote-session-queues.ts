/**
 * A CONNECT whose leftovers are queues led by another worker (`coney --workers N`): a clean
 * start's session queues, and a parked will of this client id. Deleting those is a round trip to
 * their leader, so it is done before the session opens, while the packets behind the CONNECT are
 * held as for a token login (mqtt-connection.ts); the session then finds only local queues, or
 * none, and opens as on one node. Invariant: when nothing is led elsewhere the outcome is returned
 * as it came (synchronous when it was), so a single node pays a few map lookups per CONNECT.
 */
import { type Broker, clientContext, deleteQueueAsync } from "../broker/index.js";
import type { LoginOutcome } from "./mqtt-login.js";
import { RC } from "./mqtt-reason-codes.js";
import { willQueueName } from "./mqtt-will.js";
import { QOS_LEVELS, sessionQueueName } from "./mqtt-session.js";

const NO_FLAGS = { ifUnused: false, ifEmpty: false };

/** The login outcome, after deleting on their leaders the queues this CONNECT will remove. */
export function afterRemoteLeftovers(broker: Broker, outcome: LoginOutcome | Promise<LoginOutcome>, clientId: string, cleanStart: boolean, owner: object, peer: string): LoginOutcome | Promise<LoginOutcome> {
  if (outcome instanceof Promise) return outcome.then((o) => afterRemoteLeftovers(broker, o, clientId, cleanStart, owner, peer));
  if (!outcome.ok) return outcome;
  const { vhost, permissions } = outcome.login;
  const names = cleanStart ? [willQueueName(clientId), ...QOS_LEVELS.map((qos) => sessionQueueName(clientId, qos))] : [willQueueName(clientId)];
  const remote = names.filter((n) => vhost.queues.get(n)?.leadsElsewhere === true);
  if (remote.length === 0) return outcome;
  const ctx = clientContext(permissions, owner, "mqtt", peer);
  return Promise.all(remote.map((n) => deleteQueueAsync(broker, ctx, vhost.name, n, NO_FLAGS))).then(
    () => outcome,
    (err: unknown): LoginOutcome => ({ ok: false, reasonCode: RC.serverUnavailable, why: `a session queue led by another worker could not be deleted: ${err instanceof Error ? err.message : String(err)}` }),
  );
}
