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
  if (r.status === 401 && e.error === "not_authorised") {
    // Same reason, or RabbitMQ's bare "Access refused." where Coney names the resource.
    return e.reason === "Access refused." || e.reason === errorOf(coney).reason;
  }
  return r.status === 400 && typeof e.reason === "string" && e.reason === `403 ACCESS_REFUSED - ${String(errorOf(coney).reason)}`;
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
