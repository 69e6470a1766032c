/**
 * The connection handshake as a chain of named steps (AMQP 0-9-1 §2.2.4):
 *   protocol header → start / start-ok (authenticate) → tune / tune-ok → open / open-ok.
 * The protocol header may arrive split across reads; a wrong one is answered with ours (§4.2.2).
 * Each later step handles exactly one expected method on channel 0 and names the next; any
 * other method during the handshake is a protocol error. The result is an authenticated user,
 * tuned limits and an opened vhost, handed to the connection through HandshakeHost.
 */
import { MethodId, type Method } from "../codec/generated.js";
import { BrokerError } from "../../errors/broker-error.js";
import { parseSaslResponse } from "./sasl.js";
import { SASL_MECHANISMS } from "../../auth/sasl-mechanisms.js";
import type { FieldTable } from "../../broker/values/field-value.js";

export interface Tuning {
  channelMax: number;
  frameMax: number;
  heartbeat: number;
}

/** "AMQP" 0 0 9 1 */
export const PROTOCOL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]);

/** AMQP 1.0's headers (SASL layer first, or AMQP directly): handed over when the listener serves 1.0. */
const AMQP10_HEADERS = [Buffer.from([0x41, 0x4d, 0x51, 0x50, 3, 1, 0, 0]), Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 1, 0, 0])];

/** What the handshake needs from its connection. */
export interface HandshakeHost {
  /** Our limits, proposed in connection.tune. */
  readonly serverTuning: Tuning;
  sendStart(mechanisms: string): void;
  sendTune(t: Tuning): void;
  sendOpenOk(): void;
  /**
   * Returns the user name on success; throws BrokerError (ACCESS_REFUSED) otherwise. A token
   * login (OAuth 2.0) answers with a promise: the handshake waits for it and reads nothing else.
   */
  authenticate(mechanism: string, username: string, password: string): string | Promise<string>;
  /** For the end of an asynchronous login: whether the socket is gone, send, fail. */
  readonly socketClosed: boolean;
  flush(): void;
  fail(err: unknown): void;
  /** Checks vhost existence and access; throws NOT_ALLOWED / INVALID_PATH. */
  openVhost(vhost: string): void;
  tuned(t: Tuning, clientProperties: FieldTable, mechanism: string): void;
  /** The client did not complete the handshake in time: close without a word. */
  handshakeTimedOut(): void;
}

type Step = "start-ok" | "authenticating" | "tune-ok" | "open" | "done";

export class Handshake {
  /** The protocol header bytes received so far; null once it was read whole (or refused). */
  private header: Buffer | null = Buffer.alloc(0);
  private step: Step = "start-ok";
  private clientProperties: FieldTable = {};
  private mechanism = "";
  /** The client has a limited time to complete the handshake. */
  private deadline: NodeJS.Timeout | null;

  constructor(
    private readonly host: HandshakeHost,
    timeoutSeconds: number,
  ) {
    this.deadline = setTimeout(() => host.handshakeTimedOut(), timeoutSeconds * 1000);
    this.deadline.unref();
  }

  /** The connection is gone: the deadline no longer applies. */
  stop(): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
  }

  get done(): boolean {
    return this.step === "done";
  }

  get awaitingHeader(): boolean {
    return this.header !== null;
  }

  /**
   * Step 0, then step 1: reads the protocol header and, when it is right, offers our SASL
   * mechanisms (connection.start). Returns the bytes that followed the header, null while the
   * header is incomplete, "refused" for a wrong header (the caller sends ours and closes), or,
   * when `amqp10` (the listener serves AMQP 1.0 too), an AMQP 1.0 header with what followed it.
   */
  readHeader(chunk: Buffer, amqp10 = false): Buffer | null | "refused" | { readonly amqp10: Buffer } {
    const have = Buffer.concat([this.header!, chunk]);
    const valid = PROTOCOL_HEADER.subarray(0, Math.min(8, have.length)).equals(have.subarray(0, 8));
    if (!valid) {
      const n = Math.min(8, have.length);
      if (amqp10 && AMQP10_HEADERS.some((h) => h.subarray(0, n).equals(have.subarray(0, n)))) {
        if (have.length < 8) {
          this.header = have;
          return null;
        }
        // Once per connection: the whole input so far goes to the AMQP 1.0 connection.
        this.header = null;
        this.stop();
        return { amqp10: have };
      }
      this.header = null;
      return "refused";
    }
    if (have.length < 8) {
      this.header = have;
      return null;
    }
    this.header = null;
    this.host.sendStart(SASL_MECHANISMS.join(" "));
    return have.subarray(8);
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
        if (this.host.socketClosed || this.step !== "authenticating") return;
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
    this.stop();
    this.host.sendOpenOk();
  }
}

function unexpected(got: string, expected: string): BrokerError {
  return new BrokerError("commandInvalid", `expected '${expected}', got '${got}'`);
}
