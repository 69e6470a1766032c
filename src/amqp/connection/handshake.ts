/**
 * The connection handshake as a chain of named steps (AMQP 0-9-1 §2.2.4):
 *   protocol header → start / start-ok (authenticate) → tune / tune-ok → open / open-ok.
 * Each step handles exactly one expected method on channel 0 and names the next; any other
 * method during the handshake is a protocol error. The result is an authenticated user, tuned
 * limits and an opened vhost, handed to the Connection.
 */
import { MethodId, type Method } from "../codec/generated.js";
import { BrokerError } from "../../errors/broker-error.js";
import { parseSaslResponse, SASL_MECHANISMS } from "./sasl.js";
import type { FieldTable } from "../../broker/values/field-value.js";

export interface Tuning {
  channelMax: number;
  frameMax: number;
  heartbeat: number;
}

/** What the handshake needs from its connection. */
export interface HandshakeHost {
  readonly serverTuning: Tuning;
  readonly serverProperties: FieldTable;
  sendStart(mechanisms: string): void;
  sendTune(t: Tuning): void;
  sendOpenOk(): void;
  /**
   * Returns the user name on success; throws BrokerError (ACCESS_REFUSED) otherwise. A token
   * login (OAuth 2.0) answers with a promise: the handshake waits for it and reads nothing else.
   */
  authenticate(mechanism: string, username: string, password: string): string | Promise<string>;
  /** For the end of an asynchronous login: whether the connection is still there, send, fail. */
  readonly closed: boolean;
  flush(): void;
  fail(err: unknown): void;
  /** Checks vhost existence and access; throws NOT_ALLOWED / INVALID_PATH. */
  openVhost(vhost: string): void;
  tuned(t: Tuning, clientProperties: FieldTable, mechanism: string): void;
}

type Step = "start-ok" | "authenticating" | "tune-ok" | "open" | "done";

export class Handshake {
  private step: Step = "start-ok";
  private clientProperties: FieldTable = {};
  private mechanism = "";

  constructor(private readonly host: HandshakeHost) {}

  get done(): boolean {
    return this.step === "done";
  }

  /** Step 1: after a valid protocol header, offer our mechanisms. */
  begin(): void {
    this.host.sendStart(SASL_MECHANISMS.join(" "));
  }

  /** Feeds one channel-0 method; throws BrokerError when it is not the one this step expects. */
  handle(m: Method): void {
    switch (this.step) {
      case "start-ok":
        if (m.id !== MethodId.ConnectionStartOk) throw unexpected(m.name, "connection.start-ok");
        return this.onStartOk(m.args.mechanism, m.args.response, m.args.clientProperties);
      case "authenticating":
        throw unexpected(m.name, "nothing before authentication completes");
      case "tune-ok":
        if (m.id !== MethodId.ConnectionTuneOk) throw unexpected(m.name, "connection.tune-ok");
        return this.onTuneOk(m.args);
      case "open":
        if (m.id !== MethodId.ConnectionOpen) throw unexpected(m.name, "connection.open");
        return this.onOpen(m.args.virtualHost);
      case "done":
        throw new BrokerError("commandInvalid", `unexpected ${m.name} after the handshake`);
    }
  }

  /** Step 2: authenticate with the chosen SASL mechanism, then propose tuning. */
  private onStartOk(mechanism: string, response: Buffer, clientProperties: FieldTable): void {
    if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
      throw new BrokerError("accessRefused", `unsupported authentication mechanism '${mechanism}'`);
    }
    const creds = parseSaslResponse(mechanism, response);
    if (!creds) throw new BrokerError("accessRefused", `Login was refused using authentication mechanism ${mechanism}. For details see the broker logfile.`);
    const login = this.host.authenticate(mechanism, creds.username, creds.password);
    this.clientProperties = clientProperties;
    this.mechanism = mechanism;
    if (typeof login === "string") return this.proposeTuning();
    this.step = "authenticating";
    login.then(
      () => {
        if (this.host.closed || this.step !== "authenticating") return;
        this.proposeTuning();
        this.host.flush();
      },
      (err: unknown) => this.host.fail(err),
    );
  }

  private proposeTuning(): void {
    this.step = "tune-ok";
    this.host.sendTune(this.host.serverTuning);
  }

  /** Step 3: the client's limits win when lower; zero means "no limit" and takes ours. */
  private onTuneOk(t: { channelMax: number; frameMax: number; heartbeat: number }): void {
    const s = this.host.serverTuning;
    if (t.frameMax !== 0 && t.frameMax < 4096) {
      throw new BrokerError("notAllowed", `frame_max=${t.frameMax} < 4096 min size`);
    }
    if (t.frameMax > s.frameMax) throw new BrokerError("notAllowed", `frame_max=${t.frameMax} > ${s.frameMax} max size`);
    if (t.channelMax > s.channelMax && s.channelMax !== 0) {
      throw new BrokerError("notAllowed", `channel_max=${t.channelMax} > ${s.channelMax} max`);
    }
    const tuning: Tuning = {
      channelMax: t.channelMax === 0 ? s.channelMax : t.channelMax,
      frameMax: t.frameMax === 0 ? s.frameMax : t.frameMax,
      heartbeat: t.heartbeat,
    };
    this.host.tuned(tuning, this.clientProperties, this.mechanism);
    this.step = "open";
  }

  /** Step 4: the vhost must exist and the user must have a permission record in it. */
  private onOpen(vhost: string): void {
    this.host.openVhost(vhost);
    this.step = "done";
    this.host.sendOpenOk();
  }
}

function unexpected(got: string, expected: string): BrokerError {
  return new BrokerError("commandInvalid", `expected '${expected}', got '${got}'`);
}
