/**
 * AMQP URIs as RabbitMQ's shovel and federation read them (its amqp_uri): `amqp://` or
 * `amqps://`, user and password, host and port, one vhost segment (percent-encoded), and query
 * options: heartbeat, connection_timeout, channel_max, frame_max (integers), auth_mechanism, and
 * for amqps cacertfile, certfile, keyfile, verify (verify_peer | verify_none),
 * server_name_indication (a host name or `disable`), fail_if_no_peer_cert, depth, password.
 * A URI with no host (`amqp://`, `amqp:///vhost`) is the local broker: the link calls the
 * domain directly instead of opening a TCP connection to itself.
 *
 * A bad URI throws a UriError whose text is RabbitMQ's error term (`{port_out_of_range,70000}`),
 * which the parameter validation quotes.
 */

export interface TlsUriOptions {
  readonly cacertfile?: string;
  readonly certfile?: string;
  readonly keyfile?: string;
  /** RabbitMQ's Erlang client defaults to verify_none (OTP's default in 3.10): certificates are checked only when asked. */
  readonly verify: "verify_peer" | "verify_none";
  /** The SNI host name; `disable` sends none; absent: the URI's host. */
  readonly serverNameIndication?: string;
  readonly failIfNoPeerCert?: boolean;
  readonly depth?: number;
  /** The key file's passphrase. */
  readonly password?: string;
}

export interface AmqpUri {
  /** No host: the broker this link runs in. */
  readonly local: boolean;
  readonly tls: boolean;
  readonly host: string;
  readonly port: number;
  readonly vhost: string;
  /** From the URI; null: none given (guest for a remote broker, the broker itself locally). */
  readonly username: string | null;
  readonly password: string | null;
  /** Seconds; the Erlang client's default is 10. */
  readonly heartbeat: number;
  /** Milliseconds to establish the connection (RabbitMQ's default 60000). */
  readonly connectionTimeout: number;
  readonly channelMax: number;
  readonly frameMax: number;
  /** auth_mechanism values, in the order given; plain and amqplain when none. */
  readonly authMechanisms: readonly string[];
  readonly tlsOptions: TlsUriOptions | null;
  /** The URI without credentials or query (RabbitMQ's remove_credentials): what the API shows. */
  readonly display: string;
}

/** A URI RabbitMQ would refuse; `term` is its reason as an Erlang term. */
export class UriError extends Error {
  constructor(readonly term: string) {
    super(term);
  }
}

const INTEGER_OPTIONS: Record<string, "heartbeat" | "connectionTimeout" | "channelMax" | "frameMax"> = {
  heartbeat: "heartbeat",
  connection_timeout: "connectionTimeout",
  channel_max: "channelMax",
  frame_max: "frameMax",
};

const str = (s: string): string => `"${s}"`;

function integerOption(key: string, value: string, query: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw new UriError(`{invalid_amqp_params_parameter,${key},${str(value)},${query},{not_an_integer,${str(value)}}}`);
  return Number(value);
}

function queryTerm(params: URLSearchParams): string {
  return `[${[...params].map(([k, v]) => `{${str(k)},${str(v)}}`).join(",")}]`;
}

function unescape(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new UriError(`{unterminated_entity,${str(s)}}`);
  }
}

/** Parses one AMQP URI; throws UriError as RabbitMQ's amqp_uri:parse fails. */
export function parseAmqpUri(uri: string): AmqpUri {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1];
  if (scheme === undefined) throw new UriError(`{unable_to_parse_uri,no_scheme}`);
  const lower = scheme.toLowerCase();
  if (lower !== "amqp" && lower !== "amqps") throw new UriError(`{unexpected_uri_scheme,${str(scheme)}}`);
  // WHATWG URL refuses a port past 65535 outright; RabbitMQ names it.
  const authorityPort = /^[^:]+:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)/.exec(uri)?.[1];
  if (authorityPort !== undefined && (Number(authorityPort) <= 0 || Number(authorityPort) > 65535)) throw new UriError(`{port_out_of_range,${Number(authorityPort)}}`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new UriError(`{unable_to_parse_uri,${str(uri)}}`);
  }
  const tls = lower === "amqps";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const portText = url.port;
  const port = portText === "" ? (tls ? 5671 : 5672) : Number(portText);
  if (portText !== "" && (port <= 0 || port > 65535)) throw new UriError(`{port_out_of_range,${port}}`);
  if (host === "" && portText !== "") throw new UriError("port_requires_host");
  const path = url.pathname;
  let vhost = "/";
  if (path !== "" && path !== "/") {
    const rest = path.slice(1);
    if (rest.includes("/")) throw new UriError(`{invalid_vhost,${str(rest)}}`);
    vhost = unescape(rest);
  } else if (path === "/") vhost = "";
  const params = url.searchParams;
  const query = queryTerm(params);
  const ints = { heartbeat: 10, connectionTimeout: 60000, channelMax: 0, frameMax: 0 };
  for (const [key, field] of Object.entries(INTEGER_OPTIONS)) {
    const v = params.get(key);
    if (v !== null && v !== "") ints[field] = integerOption(key, v, query);
  }
  let tlsOptions: TlsUriOptions | null = null;
  if (tls) {
    const fail = params.get("fail_if_no_peer_cert");
    if (fail !== null && fail !== "true" && fail !== "false") throw new UriError(`{invalid_ssl_parameter,fail_if_no_peer_cert,${str(fail)},${query},{require_boolean,${fail}}}`);
    const depth = params.get("depth");
    const verify = params.get("verify");
    const opt = (k: string): string | undefined => params.get(k) ?? undefined;
    tlsOptions = {
      verify: verify === "verify_peer" ? "verify_peer" : "verify_none",
      ...(opt("cacertfile") !== undefined ? { cacertfile: opt("cacertfile")! } : {}),
      ...(opt("certfile") !== undefined ? { certfile: opt("certfile")! } : {}),
      ...(opt("keyfile") !== undefined ? { keyfile: opt("keyfile")! } : {}),
      ...(opt("server_name_indication") !== undefined ? { serverNameIndication: opt("server_name_indication")! } : {}),
      ...(fail !== null ? { failIfNoPeerCert: fail === "true" } : {}),
      ...(depth !== null ? { depth: integerOption("depth", depth, query) } : {}),
      ...(opt("password") !== undefined ? { password: opt("password")! } : {}),
    };
  }
  // amqp:// ignores the TLS keys, as RabbitMQ's plain-TCP parser does (they name no field of its record).
  const mechanisms = params.getAll("auth_mechanism");
  for (const m of mechanisms) if (m.split(":").length > 2) throw new UriError(`{not_mechanism,[${m.split(":").join(",")}]}`);
  const username = url.username === "" ? null : unescape(url.username);
  const password = url.password === "" ? (username === null ? null : "") : unescape(url.password);
  return {
    local: host === "",
    tls,
    host,
    port,
    vhost,
    username,
    password,
    ...ints,
    authMechanisms: mechanisms.length > 0 ? mechanisms : ["plain", "amqplain"],
    tlsOptions,
    display: `${lower}://${host.includes(":") ? `[${host}]` : host}${portText === "" ? "" : `:${port}`}${path}`,
  };
}

/** The URI as the API shows it: credentials and query removed; the text itself when it does not parse. */
export function displayUri(uri: string): string {
  try {
    return parseAmqpUri(uri).display;
  } catch {
    return uri.replace(/\/\/[^@/]*@/, "//");
  }
}
