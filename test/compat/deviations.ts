/**
 * The chosen deviations from RabbitMQ 3.10: the ONE list of differences the compat replay
 * accepts, each with its reason. Everything else RabbitMQ answered, Coney must answer too.
 * docs/COMPATIBILITY.md is the reader's table of these (and of what still differs).
 *
 * `where` is `<scenario-file>/<scenario name>` (`*` wildcards); `step` (optional) a step label
 * such as `GET /api/overview`; `kind` and `path` name the difference (see compare.ts); `when`
 * (optional) narrows it to answers of a given form.
 */
import type { DifferenceKind } from "./compare.js";
import type { Outcome } from "./scenario.js";

export interface Deviation {
  readonly where: string;
  readonly step?: string;
  readonly kind: DifferenceKind | readonly DifferenceKind[];
  readonly path?: string;
  readonly when?: (rabbit: Outcome, coney: Outcome) => boolean;
  readonly reason: string;
}

type Http = Extract<Outcome, { kind: "http" }>;
const http = (o: Outcome): Http | null => (o.kind === "http" ? o : null);
const errorOf = (o: Outcome): { error?: unknown; reason?: unknown } => (http(o)?.body ?? {}) as { error?: unknown; reason?: unknown };

/**
 * RabbitMQ's refusals after login: 401 not_authorised (a missing tag, a vhost, "Access refused."
 * for a permission pattern) or 400 "403 ACCESS_REFUSED - …" (publish). The spec makes them 403.
 */
function specForbidden(rabbit: Outcome, coney: Outcome): boolean {
  const r = http(rabbit);
  const c = http(coney);
  if (!r || !c || c.status !== 403) return false;
  const e = errorOf(rabbit);
  const c403 = String(errorOf(coney).reason);
  if (r.status === 401 && e.error === "not_authorised") {
    // Same reason, RabbitMQ's bare "Access refused." where Coney names the resource, or its
    // reply-name prefix before the same text.
    return e.reason === "Access refused." || e.reason === c403 || e.reason === `ACCESS_REFUSED - ${c403}`;
  }
  return r.status === 400 && typeof e.reason === "string" && e.reason === `403 ACCESS_REFUSED - ${c403}`;
}

const ERLANG = "Erlang-only figure (VM reductions, garbage collection, process ids): no meaning on Node, and no tool depends on it.";

export const DEVIATIONS: readonly Deviation[] = [
  // --- The seed spec's statuses ---
  {
    where: "*",
    kind: ["status", "error", "reason"],
    when: specForbidden,
    reason: "The spec: an authenticated user without sufficient permission or tag gets 403 (RabbitMQ 3.10 answers 401 not_authorised, or 400 \"403 ACCESS_REFUSED - …\" on publish); Coney's reason names the refused resource where RabbitMQ says \"Access refused.\".",
  },
  {
    where: "*",
    step: "PUT /api/permissions/*",
    kind: "status",
    when: (r, c) => http(r)?.status === 201 && http(c)?.status === 204,
    reason: "The spec: PUT of a permission answers 204 (RabbitMQ 201 when it creates one).",
  },

  // --- Supersets ---
  {
    where: "*",
    kind: "extra-key",
    reason: "Coney may send fields RabbitMQ 3.10 leaves out (its queue and connection figures only appear after the first 5 s statistics emission; later versions' fields): management clients ignore fields they do not know.",
  },

  // --- Better answers where RabbitMQ 3.10 crashes or says less ---
  {
    where: "queues/get and publish validation",
    step: "POST /api/queues/*/get",
    kind: ["status", "type"],
    when: (r, c) => http(r)?.status === 500 && http(c)?.status === 400,
    reason: "RabbitMQ 3.10 crashes (500, no body) on an unknown ackmode; Coney answers 400 bad_request naming the valid ackmodes.",
  },
  {
    where: "pcre-patterns/patterns PCRE refuses are refused",
    kind: "reason",
    reason: "An invalid pattern: RabbitMQ's reason is PCRE's message and offset as an Erlang term (for permissions a list of character codes); Coney's is readable text naming the pattern and the same fault. Same status and error.",
  },
  {
    where: "endpoints/overview, nodes, cluster name, extensions",
    step: "GET /api/nodes/rabbit@no-such-node",
    kind: ["status", "type"],
    reason: "RabbitMQ 3.10 crashes (500) on an unknown node name; Coney answers 404 Object Not Found.",
  },
  {
    where: "*",
    kind: ["value", "type"],
    path: "*properties",
    when: (r) => JSON.stringify(http(r)?.body).includes('"properties":[]'),
    reason: "The seed spec: a message's `properties` is an object; RabbitMQ 3.10 sends an empty property set as [] (an Erlang empty list), Coney as {}.",
  },
  {
    where: "vhosts/vhosts: create, update, delete",
    step: "GET /api/vhosts/compat-vh",
    kind: "value",
    path: "*",
    when: (_r, c) => JSON.stringify(http(c)?.body).includes('"tags":["a","b"]') || JSON.stringify(http(c)?.body).includes('"description":"second"'),
    reason: "Issue 17: PUT /api/vhosts/{v} keeps the tags and description it does not name (as RabbitMQ 3.11+); RabbitMQ 3.10.8 clears them.",
  },
  {
    where: "*",
    kind: "reason",
    when: (r, c) => String(errorOf(r).reason).replace(/&lt;/g, "<").replace(/&gt;/g, ">") === errorOf(c).reason,
    reason: "RabbitMQ 3.10 HTML-escapes the validation texts of /api/policies (&lt;&lt;\"x\"&gt;&gt;); Coney sends them as plain text, as RabbitMQ does on every other route.",
  },
  {
    where: "*",
    kind: "missing-key",
    path: "*cluster_state.*",
    reason: "cluster_state is keyed by node name, which differs between the recording node and Coney.",
  },
  {
    where: "queue-type-records/*",
    kind: "missing-key",
    path: "*{readers,open_files}.*",
    reason: "readers (streams) and open_files (quorum queues) are keyed by node name, which differs between the recording node and Coney; Coney's own node is the key there.",
  },
  {
    where: "queue-type-records/*",
    step: "GET /api/queues/*/qs",
    kind: "missing-key",
    path: "memory",
    reason: "A stream's memory in RabbitMQ is its osiris writer process's; Coney's stream has no process of its own and no figure of that meaning (a classic queue's memory figure would count the log on disk).",
  },
  {
    where: "definitions/*",
    kind: "missing-item",
    path: "global_parameters[]",
    reason: "RabbitMQ exports its internal_cluster_id global parameter; it names nothing in Coney (and Coney's import ignores it).",
  },

  // --- Record fields of the management UI (issue 17, branch fidelity-ui) ---
  {
    where: "*",
    step: "GET /api/{overview,nodes,connections,channels,consumers,vhosts/*/connections,vhosts/*/channels}*",
    kind: "missing-key",
    reason: "Erlang-only figures Coney leaves out (io/mnesia/gc/message-store counters and their rates, metrics_gc_queue_length, ra_open_file_metrics, reductions, garbage_collection; ssl_*/peer_cert_* and user_provided_name appear only for TLS connections and named clients, which the recording has none of): RabbitMQ's UI draws only what is present (README, \"The node record\").",
  },
  {
    where: "*",
    step: "GET /api/{queues,exchanges}/*",
    kind: "missing-key",
    path: "*{incoming,outgoing,deliveries,consumer_details,backing_queue_status,recoverable_slaves}",
    reason: "List records leave out what RabbitMQ sends only on one-object GETs of some queue types; recoverable_slaves names classic-queue mirrors, which a single node does not have.",
  },
  {
    where: "*",
    step: "GET /api/queues/*",
    kind: "missing-key",
    path: "*backing_queue_status.*",
    reason: "backing_queue_status gives the mode and length only; RabbitMQ's q1–q4/delta split, sequence ids, target_ram_count and ingress/egress averages are Erlang classic-queue internals (no UI page reads them).",
  },
  {
    where: "*",
    step: "GET /api/{overview,nodes}*",
    kind: ["missing-item", "extra-item"],
    path: "*{applications,auth_mechanisms,enabled_plugins,contexts,sample_retention_policies}*",
    reason: "The node's own lists: applications are Coney, its runtime dependencies and Node.js (not Erlang applications); auth_mechanisms the SASL mechanisms Coney offers; enabled_plugins the RabbitMQ plugins whose function Coney serves built in (listeners configured here); one web context (no Prometheus plugin listener); no retained rate history ranges (two samples 5 s apart). README, \"The node record\".",
  },
  {
    where: "*",
    step: "GET /api/{overview,nodes}*",
    kind: "extra-item",
    path: "*exchange_types[{x-consistent-hash,x-delayed-message}]",
    reason: "The consistent-hash and delayed-message exchange types are built in (issue 27); a RabbitMQ node lists them once their plugins are enabled. README, \"Plugin exchanges and consumer timeouts\".",
  },

  {
    where: "auth/failed logins are 401 with RabbitMQ's challenge and body",
    step: "GET /api/vhosts as nobody",
    kind: ["status", "header", "type"],
    reason: "An Authorization header that is not decodable Basic credentials: cowboy answers 400 with no body; Coney answers it as every failed login, 401 with the Basic challenge (RFC 7235).",
  },
  {
    where: "users-permissions/users without permissions and bulk delete",
    step: "{GET /api/users/compat-up-b,POST /api/users/bulk-delete}",
    kind: ["status", "error", "type"],
    reason: "Bulk delete is all-or-nothing in Coney (no error leaves half-done state): a list naming an unknown user deletes nobody (RabbitMQ deletes the others, then answers 400); a `users` that is no list is 400 (RabbitMQ crashes, 500).",
  },
  {
    where: "vhosts/vhosts: create, update, delete",
    step: "PUT /api/vhosts/compat-vh",
    kind: ["status", "type"],
    when: (r, c) => http(r)?.status === 204 && http(c)?.status === 400,
    reason: "An unknown default_queue_type is refused with 400 (as RabbitMQ 3.11+); RabbitMQ 3.10 stores it.",
  },
  {
    where: "endpoints/policies, operator policies, parameters, global parameters",
    step: "PUT /api/policies/*/p3",
    kind: "reason",
    reason: "A policy key's value error: RabbitMQ's text is per key (\"<<\\\"ten\\\">> is not a valid maximum length\"); Coney's names the key and the expected type. Same status and error.",
  },

  {
    where: "endpoints/overview, nodes, cluster name, extensions",
    step: "GET /api/overview",
    kind: "missing-item",
    path: "listeners[*]",
    reason: "RabbitMQ also lists its Erlang distribution listener (clustering) and the Prometheus plugin's (http/prometheus); Coney has no Erlang distribution, and its Prometheus endpoint is the metrics work of issue 17's siblings.",
  },

  {
    where: "amqp-errors/exclusive queues of another connection",
    step: "GET /api/queues/*/mine",
    kind: "type",
    path: "owner_pid_details",
    when: (r) => JSON.stringify((http(r)?.body as { owner_pid_details?: unknown } | undefined)?.owner_pid_details) === "[]",
    reason: "RabbitMQ 3.10 sends owner_pid_details as [] until its first statistics emission, then as {name, peer_host, peer_port}; Coney sends the object at once.",
  },

  // --- Erlang-only figures ---
  { where: "*", kind: "missing-key", path: "*reductions*", reason: ERLANG },
  { where: "*", kind: "missing-key", path: "*garbage_collection*", reason: ERLANG },
];

export function deviationCovers(d: Deviation, where: string, step: string, kind: DifferenceKind, path: string, rabbit: Outcome, coney: Outcome, globMatches: (p: string, t: string) => boolean): boolean {
  const kinds = typeof d.kind === "string" ? [d.kind] : d.kind;
  return (
    kinds.includes(kind) &&
    globMatches(d.where, where) &&
    (d.step === undefined || globMatches(d.step, step)) &&
    (d.path === undefined || globMatches(d.path, path)) &&
    (d.when === undefined || d.when(rabbit, coney))
  );
}
