/**
 * The compat scenario format. A scenario file (test/compat/scenarios/*.ts) exports
 * `scenarios: Scenario[]`; `npm run compat:record` runs each against a real RabbitMQ 3.10 and
 * saves its answers in test/compat/recorded/<file>.json; test/compat/replay.test.ts runs the same
 * scenarios against Coney and compares (test/compat/compare.ts), minus the chosen deviations
 * (test/compat/deviations.ts).
 *
 * A scenario owns its fixtures: `setup` steps run first (each must succeed, nothing compared),
 * `steps` are compared, `cleanup` steps always run last (errors ignored). Strings in paths,
 * bodies and credentials may name `{{var}}`s captured by earlier steps (`capture`).
 */

/** "user:password"; default guest:guest. `null` sends no Authorization header. */
export type Credentials = string | null;

export interface HttpStep {
  /** [method, path]; the path starts with /api. */
  readonly http: readonly [string, string];
  /** A JSON body; `raw` sends the text as it is (for malformed-body cases). */
  readonly body?: unknown;
  readonly raw?: string;
  readonly as?: Credentials;
  readonly headers?: Readonly<Record<string, string>>;
  /** Save values of the answer for later steps: var name → dotted path into the JSON body. */
  readonly capture?: Readonly<Record<string, string>>;
  /** Dotted paths (`*` for any key or index) whose values must be equal, not just of one type. */
  readonly exact?: readonly string[];
  /**
   * How list items are matched: "identity" (default) pairs items by name/vhost/user/… and wants
   * the same set; "shape" only checks that every item has the shape of RabbitMQ's first one
   * (for lists that hold objects other tools created on the recording node).
   */
  readonly items?: "identity" | "shape";
  /** Exact values compare lists as sets: for listings whose order RabbitMQ does not define. */
  readonly anyOrder?: boolean;
  /** Poll (up to 10 s) until this holds: for figures that RabbitMQ's stats publish late. */
  readonly until?: (status: number, body: unknown) => boolean;
}

export type AmqpOp =
  | { readonly op: "open" }
  | { readonly op: "close" }
  | { readonly op: "declareQueue"; readonly queue: string; readonly options?: Readonly<Record<string, unknown>> }
  | { readonly op: "checkQueue"; readonly queue: string }
  | { readonly op: "deleteQueue"; readonly queue: string; readonly options?: { readonly ifEmpty?: boolean; readonly ifUnused?: boolean } }
  | { readonly op: "declareExchange"; readonly exchange: string; readonly type: string; readonly options?: Readonly<Record<string, unknown>> }
  | { readonly op: "bindQueue"; readonly queue: string; readonly exchange: string; readonly routingKey: string; readonly args?: Readonly<Record<string, unknown>> }
  | { readonly op: "bindExchange"; readonly destination: string; readonly source: string; readonly routingKey: string }
  | { readonly op: "publish"; readonly exchange: string; readonly routingKey: string; readonly body: string }
  | { readonly op: "get"; readonly queue: string }
  /** Without options: no-ack. `prefetch` sets basic.qos first (a stream consumer needs it). */
  | { readonly op: "consume"; readonly queue: string; readonly options?: Readonly<Record<string, unknown>>; readonly prefetch?: number }
  | { readonly op: "purge"; readonly queue: string }
  | { readonly op: "updateSecret"; readonly secret: string };

/**
 * One AMQP operation on a named connection (default "c"), each on a fresh channel so a channel
 * error answers only that step. The outcome compared is ok, or the reply code and text.
 */
export type AmqpStep = AmqpOp & {
  readonly amqp: true;
  readonly conn?: string;
  /** For op "open": the login and vhost. */
  readonly as?: string;
  readonly vhost?: string;
};

export type Step = HttpStep | AmqpStep;

export interface Scenario {
  readonly name: string;
  readonly setup?: readonly Step[];
  readonly steps: readonly Step[];
  readonly cleanup?: readonly Step[];
}

/** What one compared step answered; the recorded files hold arrays of these per scenario. */
export type Outcome =
  | { readonly kind: "http"; readonly label: string; readonly status: number; readonly headers: Record<string, string>; readonly body: unknown }
  | { readonly kind: "amqp"; readonly label: string; readonly ok: boolean; readonly code?: number; readonly text?: string; readonly value?: unknown };

/** The recorded file of one scenario file: scenario name → outcomes of its steps. */
export interface Recording {
  readonly recordedFrom: string;
  readonly scenarios: Record<string, Outcome[]>;
}

export const isHttp = (s: Step): s is HttpStep => "http" in s;

/** Shorthands that keep scenario files readable. */
export const get = (path: string, more: Omit<HttpStep, "http"> = {}): HttpStep => ({ http: ["GET", path], ...more });
export const put = (path: string, body?: unknown, more: Omit<HttpStep, "http" | "body"> = {}): HttpStep => ({ http: ["PUT", path], ...(body === undefined ? {} : { body }), ...more });
export const post = (path: string, body?: unknown, more: Omit<HttpStep, "http" | "body"> = {}): HttpStep => ({ http: ["POST", path], ...(body === undefined ? {} : { body }), ...more });
export const del = (path: string, more: Omit<HttpStep, "http"> = {}): HttpStep => ({ http: ["DELETE", path], ...more });
export const amqp = (op: AmqpOp, more: { conn?: string; as?: string; vhost?: string } = {}): AmqpStep => ({ amqp: true, ...op, ...more });

/** Fixture helpers: a vhost of the scenario's own, and a user with a permission on it. */
export const vhostFixture = (vhost: string): { setup: Step[]; cleanup: Step[] } => ({
  setup: [put(`/api/vhosts/${encodeURIComponent(vhost)}`, {})],
  cleanup: [del(`/api/vhosts/${encodeURIComponent(vhost)}`)],
});

export const userFixture = (user: string, tags: string, vhost: string | null, perms: [string, string, string] = [".*", ".*", ".*"]): { setup: Step[]; cleanup: Step[] } => ({
  setup: [
    put(`/api/users/${encodeURIComponent(user)}`, { password: "pw", tags }),
    ...(vhost === null ? [] : [put(`/api/permissions/${encodeURIComponent(vhost)}/${encodeURIComponent(user)}`, { configure: perms[0], write: perms[1], read: perms[2] })]),
  ],
  cleanup: [del(`/api/users/${encodeURIComponent(user)}`)],
});
