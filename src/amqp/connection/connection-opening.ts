/**
 * The connection's side of the handshake (HandshakeHost; the steps are in handshake.ts): it
 * sends connection.start, tune and open-ok, logs the client in (login-session.ts), applies the
 * negotiated limits, admits the connection to its vhost, and registers the open connection
 * with the broker. What it learns (user, limits, vhost) it writes into the connection.
 */
import type { PermissionChecker } from "../../auth/permission-check.js";
import { type Broker, clusterNameOf, type VHost, type ClientConnection } from "../../broker/index.js";
import type { FieldTable } from "../../broker/values/field-value.js";
import type { Logger } from "../../logging/logger.js";
import { encodeConnectionOpenOk, encodeConnectionStart, encodeConnectionTune } from "../codec/generated.js";
import { nodeConnectionLimit, type AmqpSettings } from "./amqp-settings.js";
import type { ConnectionState } from "./connection-close.js";
import type { FrameOutput } from "./frame-output.js";
import type { HandshakeHost, Tuning } from "./handshake.js";
import type { LoginSession } from "./login-session.js";
import { serverProperties } from "./server-properties.js";

/** What opening writes into and needs of its connection. */
export interface OpeningConnection extends ClientConnection {
  state: ConnectionState;
  user: string;
  permissions: PermissionChecker | null;
  vhost: string;
  vhostRef: VHost | null;
  clientProperties: FieldTable;
  authMechanism: string;
  readonly broker: Broker;
  readonly settings: AmqpSettings;
  readonly log: Logger;
  readonly peerHost: string;
  readonly isLoopback: boolean;
  readonly output: FrameOutput;
  readonly login: LoginSession;
  connectionError(err: unknown, classId: number, methodId: number): void;
  destroy(): void;
  /** connection.tune-ok: the negotiated limits apply from now on (frame size, heartbeats). */
  applyTuning(t: Tuning): void;
}

export class ConnectionOpening implements HandshakeHost {
  /** Set when the socket closes: an asynchronous login that ends later changes nothing. */
  socketClosed = false;

  constructor(
    private readonly conn: OpeningConnection,
    readonly serverTuning: Tuning,
  ) {}

  sendStart(mechanisms: string): void {
    const c = this.conn;
    encodeConnectionStart(c.output.out, 0, {
      versionMajor: 0,
      versionMinor: 9,
      serverProperties: serverProperties(clusterNameOf(c.broker.globalParameters, c.settings.clusterName)),
      mechanisms: Buffer.from(mechanisms),
      locales: Buffer.from("en_US"),
    });
  }

  authenticate(mechanism: string, username: string, password: string): string | Promise<string> {
    const c = this.conn;
    const attempt = { mechanism, username, password, peerHost: c.peerHost, peerIsLoopback: c.isLoopback };
    return c.login.authenticate(attempt, (l) => {
      c.user = l.user;
      c.permissions = l.permissions;
      return l.user;
    });
  }

  sendTune(t: Tuning): void {
    this.conn.state = "tuning";
    encodeConnectionTune(this.conn.output.out, 0, t);
  }

  tuned(t: Tuning, clientProperties: FieldTable, mechanism: string): void {
    this.conn.clientProperties = clientProperties;
    this.conn.authMechanism = mechanism;
    this.conn.applyTuning(t);
  }

  /** Checks vhost existence, access and the connection limits; throws NOT_ALLOWED / INVALID_PATH. */
  openVhost(vhost: string): void {
    const c = this.conn;
    c.state = "opening";
    c.vhostRef = c.broker.admitConnection(c.permissions!, vhost, nodeConnectionLimit(c.settings));
    c.vhost = vhost;
    c.output.vhostTraffic = c.vhostRef.stats;
  }

  sendOpenOk(): void {
    const c = this.conn;
    encodeConnectionOpenOk(c.output.out, 0, { knownHosts: "" });
    c.state = "running";
    c.broker.connections.add(c);
    c.broker.stats.connectionCreated++;
    c.log.debug("connection opened", { user: c.user, vhost: c.vhost });
  }

  flush(): void {
    this.conn.output.flush();
  }

  fail(err: unknown): void {
    this.conn.connectionError(err, 0, 0);
  }

  handshakeTimedOut(): void {
    this.conn.log.warn("closing connection: handshake timeout");
    this.conn.destroy();
  }
}
