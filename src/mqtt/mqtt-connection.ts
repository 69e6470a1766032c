/**
 * One MQTT connection over a byte stream (a TCP socket, or a WebSocket as a stream): packet
 * parsing (mqtt-packet), the CONNECT handshake, dispatch of packets to the session (subscribe,
 * deliveries, PUBACK) and the publisher, keep-alive, and closing. Registered in the broker's
 * connection registry once connected, so the management API lists and closes it like an AMQP one.
 *
 * MQTT's rule for bad input is to close the connection: a malformed packet, a first packet that
 * is not CONNECT, a second CONNECT, a wildcard in a PUBLISH topic, QoS 2 (not supported, as in
 * RabbitMQ) all close it (MQTT 5: after a DISCONNECT with the reason). The will is published
 * whenever the connection ends other than by the client's DISCONNECT.
 */
import type { Duplex } from "node:stream";
import { generate, parser, type IConnectPacket, type Packet } from "mqtt-packet";
import { type Blockable, type ClientConnection, type ClientContext, clientContext, type ConnectionInfo, type FlowHost, PublishFlow, type ResourceAlarms, type VHost } from "../broker/index.js";
import { logInMqtt } from "./mqtt-login.js";
import { acceptingConnack, connectTerms, refusingConnack } from "./mqtt-connect.js";
import type { MqttNode, SessionHolder } from "./mqtt-node.js";
import { MqttPublisher, type PublisherLink } from "./mqtt-publisher.js";
import { RC } from "./mqtt-reason-codes.js";
import { MqttSession, type SessionLink } from "./mqtt-session.js";
import { isValidTopicFilter, isValidTopicName } from "./mqtt-topic.js";
import { publishWill, type Will } from "./mqtt-will.js";
import { KeepAlive } from "./keep-alive.js";

/** Before CONNECT, a client may send at most this much (RabbitMQ's max_packet_size_unauthenticated). */
const MAX_UNAUTHENTICATED_PACKET = 65_536;

/** Where the stream comes from, for the connection's name and record. */
export interface PeerInfo {
  readonly host: string;
  readonly port: number;
  readonly peerHost: string;
  readonly peerPort: number;
  readonly isLoopback: boolean;
  readonly tls: boolean;
  /** "MQTT" over TCP, "Web MQTT" over WebSocket (RabbitMQ's protocol names). */
  readonly protocolName: "MQTT" | "Web MQTT";
}

const VERSION_NAMES: Record<number, string> = { 3: "3.1.0", 4: "3.1.1", 5: "5-0" };

export class MqttConnection implements ClientConnection, SessionLink, PublisherLink, SessionHolder, FlowHost {
  readonly name: string;
  readonly channelCount = 0;
  state: "handshake" | "open" | "closed" = "handshake";
  user = "";
  vhost = "";
  clientId = "";
  v5 = false;
  ctx!: ClientContext;
  private protocolVersion = 4;
  private vhostRef: VHost | null = null;
  private session: MqttSession | null = null;
  private publisher: MqttPublisher | null = null;
  private will: Will | null = null;
  private keepAliveSeconds = 0;
  private readonly keepAlive: KeepAlive;
  private readonly parserSettings = { protocolVersion: 4 };
  private readonly parser = parser(this.parserSettings);
  /** Publisher flow control: a publisher outrunning a consumed queue is not read for a while. */
  readonly flow = new PublishFlow(this);
  /** Set while a memory or disk alarm holds this publisher: its socket is not read. */
  private alarmHeld = false;
  private readonly alarmBlock: Blockable = { unblock: () => this.alarmCleared() };
  private corked = false;
  private readonly connectedAt = Date.now();
  private readonly stats = { recvOct: 0, sendOct: 0, recvCnt: 0, sendCnt: 0 };
  private readonly uncork = (): void => {
    this.corked = false;
    this.stream.uncork();
  };

  constructor(
    private readonly node: MqttNode,
    private readonly stream: Duplex,
    private readonly peer: PeerInfo,
  ) {
    this.name = `${peer.peerHost}:${peer.peerPort} -> ${peer.host}:${peer.port}`;
    this.keepAlive = new KeepAlive(() => this.onKeepAliveExpired());
    this.keepAlive.arm(node.settings.connectTimeout, false);
    this.parser.on("packet", (p: Packet) => this.handle(p));
    this.parser.on("error", (err: Error) => this.onMalformed(err.message));
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.on("drain", () => this.session?.drained());
    stream.on("error", (err) => node.log.debug("MQTT socket error", { err: err.message }));
    // A WebSocket stream ends without "close" (ws creates it with emitClose off): both count.
    stream.on("end", () => this.close("socket closed", true, null));
    stream.on("close", () => this.close("socket closed", true, null));
  }

  get writable(): boolean {
    return !this.stream.writableNeedDrain;
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  get hasConsumers(): boolean {
    return this.session !== null && this.session.hasConsumers;
  }

  pauseForFlow(): void {
    this.stream.pause();
  }

  resumeFromFlow(): void {
    if (this.state !== "closed" && !this.alarmHeld) this.stream.resume();
  }

  /**
   * A PUBLISH arrived while an alarm is on: stop reading (the packets already read are still
   * handled) until every alarm has cleared. MQTT has no "blocked" packet; TCP back-pressure tells.
   */
  private blockForAlarm(alarms: ResourceAlarms): void {
    this.alarmHeld = true;
    this.stream.pause();
    alarms.hold(this.alarmBlock);
  }

  private alarmCleared(): void {
    if (!this.alarmHeld) return;
    this.alarmHeld = false;
    if (this.state !== "closed" && !this.flow.paused) this.stream.resume();
  }

  // ------------------------------------------------------------ input

  private onData(chunk: Buffer): void {
    if (this.state === "closed") return;
    this.keepAlive.touch();
    this.stats.recvOct += chunk.length;
    const buffered = this.parser.parse(chunk);
    const limit = this.state === "handshake" ? MAX_UNAUTHENTICATED_PACKET : this.node.settings.maxPacketSize;
    // The state may have changed while parsing (a packet closed the connection).
    if (buffered > limit) this.violation(RC.packetTooLarge, `packet larger than ${limit} bytes`);
  }

  private onMalformed(why: string): void {
    if (this.state === "handshake" && why === "Invalid protocol version") {
      // MQTT 3.1.1 §3.1.2.2: answer 0x01 before closing (a 3.1.1 CONNACK: the version is unknown).
      this.send({ cmd: "connack", returnCode: 1, sessionPresent: false });
    }
    this.violation(RC.malformedPacket, `malformed packet: ${why}`);
  }

  private handle(p: Packet): void {
    if (this.state === "closed") return;
    this.stats.recvCnt++;
    if (this.state === "handshake") {
      if (p.cmd === "connect") this.onConnect(p);
      else this.violation(RC.protocolError, `first packet is ${p.cmd}, not connect`);
      return;
    }
    switch (p.cmd) {
      case "publish": {
        const alarms = this.node.alarms;
        if (alarms !== null && alarms.reason !== null && !this.alarmHeld) this.blockForAlarm(alarms);
        if (p.qos === 2) return this.violation(RC.qosNotSupported, "QoS 2 PUBLISH is not supported");
        if (this.v5 && p.properties?.topicAlias !== undefined) return this.violation(RC.topicAliasInvalid, "topic aliases are not supported");
        if (!isValidTopicName(p.topic)) return this.violation(RC.topicNameInvalid, `invalid topic name '${p.topic}' in PUBLISH`);
        return this.publisher!.publish(p);
      }
      case "puback":
        return this.session!.acknowledged(p.messageId!);
      case "subscribe":
        // A bad filter closes the connection before anything is bound (MQTT 3.1.1 §4.8).
        for (const s of p.subscriptions) if (!isValidTopicFilter(s.topic)) return this.violation(RC.topicFilterInvalid, `invalid topic filter '${s.topic}'`);
        return this.session!.subscribe(p);
      case "unsubscribe":
        return this.session!.unsubscribe(p);
      case "pingreq":
        return this.send({ cmd: "pingresp" });
      case "disconnect":
        // MQTT 5 reason 0x04: "disconnect with will message".
        return this.close("client disconnected", this.v5 && p.reasonCode === 0x04, null);
      default:
        return this.violation(RC.protocolError, `unexpected ${p.cmd} packet`);
    }
  }

  private onConnect(p: IConnectPacket): void {
    this.protocolVersion = p.protocolVersion ?? 4;
    this.v5 = this.protocolVersion === 5;
    this.parserSettings.protocolVersion = this.protocolVersion;
    const asked = connectTerms(p, this.v5);
    if (!asked.ok) {
      // A bad will topic is a malformed CONNECT: MQTT 5 can say so, 3.1.1 has no code for it.
      if (asked.reasonCode === RC.topicNameInvalid && !this.v5) return this.violation(asked.reasonCode, asked.why);
      return this.refuseConnect(asked.reasonCode, asked.why);
    }
    const { terms } = asked;
    const outcome = logInMqtt(this.node, p, this.peer.peerHost, this.peer.isLoopback);
    if (!outcome.ok) return this.refuseConnect(outcome.reasonCode, outcome.why);
    const { login } = outcome;
    this.user = login.user;
    this.vhost = login.vhost.name;
    this.vhostRef = login.vhost;
    this.clientId = terms.clientId;
    this.ctx = clientContext(login.permissions, this, "mqtt", `${this.peer.peerHost}:${this.peer.peerPort}`);
    this.will = p.will ?? null;
    this.state = "open";
    // A session for this client id elsewhere ends now (its will is published), before this one looks at the queues.
    this.node.claim(this.vhost, this.clientId, this);
    const session = new MqttSession(this.node, this, login.vhost, terms.expiry, Math.min(this.node.settings.prefetch, terms.receiveMaximum));
    let present: boolean;
    try {
      present = session.open(terms.cleanStart);
    } catch (err) {
      this.node.release(this.vhost, this.clientId, this);
      this.state = "handshake";
      return this.refuseConnect(RC.notAuthorized, err instanceof Error ? err.message : String(err));
    }
    this.session = session;
    this.publisher = new MqttPublisher(this.node, this, login.vhost);
    this.node.broker.connections.add(this);
    this.node.broker.stats.connectionCreated++;
    this.send(acceptingConnack(this.v5, present, terms, this.node.settings.maxPacketSize));
    this.keepAliveSeconds = p.keepalive ?? 0;
    this.keepAlive.arm(this.keepAliveSeconds * 1.5, true);
    this.node.log.debug("MQTT connection opened", { clientId: this.clientId, user: this.user, vhost: this.vhost, sessionPresent: present });
    try {
      session.resume();
    } catch (err) {
      this.violation(RC.notAuthorized, err instanceof Error ? err.message : String(err));
    }
  }

  private refuseConnect(reasonCode: number, why: string): void {
    this.node.log.warn("MQTT connection refused", { peer: this.name, reason: why });
    this.send(refusingConnack(this.v5, reasonCode));
    this.close(`connect refused: ${why}`, false, null);
  }

  // ------------------------------------------------------------ output

  send(packet: Packet): void {
    if (this.stream.destroyed) return;
    const buf = generate(packet, this.parserSettings);
    if (!this.corked) {
      // Packets written in one event-loop turn leave in one write.
      this.corked = true;
      this.stream.cork();
      process.nextTick(this.uncork);
    }
    this.stream.write(buf);
    this.stats.sendOct += buf.length;
    this.stats.sendCnt++;
  }

  // ------------------------------------------------------------ closing

  /** A protocol or permission violation: MQTT 5 hears why in a DISCONNECT; the will is published. */
  violation(reasonCode: number, why: string): void {
    if (this.state === "closed") return;
    this.node.log.warn("MQTT connection closed", { peer: this.name, clientId: this.clientId, reason: why });
    this.close(why, true, reasonCode);
  }

  /** The management API (or a vhost or user deletion) closes the connection. */
  forceClose(reason: string): void {
    this.node.log.info("MQTT connection closed by the broker", { clientId: this.clientId, reason });
    this.close(reason, true, RC.administrativeAction);
  }

  /** Another connection CONNECTed with this client id (MQTT 3.1.1 §3.1.4-2). */
  takenOver(): void {
    this.node.log.info("MQTT session taken over by a new connection", { clientId: this.clientId });
    this.close("session taken over", true, RC.sessionTakenOver);
  }

  /** Broker shutdown: MQTT 5 clients hear "server shutting down"; no will, as the node goes away. */
  shutdown(): void {
    this.close("broker shutdown", false, RC.serverShuttingDown);
  }

  private onKeepAliveExpired(): void {
    // A connection paused by flow control or an alarm is not read: its silence is the broker's doing.
    if (this.flow.paused || this.alarmHeld) return this.keepAlive.arm(this.keepAliveSeconds * 1.5, true);
    if (this.state === "handshake") this.close("no CONNECT in time", false, null);
    else this.violation(RC.keepAliveTimeout, `no packet within 1.5 × keep-alive (${this.keepAliveSeconds} s)`);
  }

  /**
   * Ends the connection once: the session lets go of its queues (unacknowledged deliveries are
   * requeued, exclusive queues deleted), the will is published when `withWill`, and the stream is
   * ended after a DISCONNECT `reasonCode` for MQTT 5 connected clients.
   */
  private close(why: string, withWill: boolean, reasonCode: number | null): void {
    if (this.state === "closed") return;
    const wasOpen = this.state === "open";
    this.state = "closed";
    this.keepAlive.stop();
    this.flow.stop();
    this.node.alarms?.release(this.alarmBlock);
    if (wasOpen && this.v5 && reasonCode !== null) this.send({ cmd: "disconnect", reasonCode });
    if (wasOpen) this.teardown(withWill);
    this.node.log.debug("MQTT connection closed", { peer: this.name, clientId: this.clientId, reason: why });
    this.stream.end();
    setTimeout(() => this.stream.destroy(), 1000).unref();
  }

  private teardown(withWill: boolean): void {
    this.session?.release();
    const broker = this.node.broker;
    broker.ownerClosed(this);
    if (withWill && this.will && this.vhostRef) publishWill(this.node, this.ctx, this.vhostRef, this.will, this.clientId);
    if (broker.connections.get(this.name) === this) {
      broker.connections.remove(this);
      broker.stats.connectionClosed++;
    }
    this.node.release(this.vhost, this.clientId, this);
  }

  // ------------------------------------------------------------ management

  info(): ConnectionInfo {
    return {
      name: this.name,
      host: this.peer.host,
      port: this.peer.port,
      peerHost: this.peer.peerHost,
      peerPort: this.peer.peerPort,
      user: this.user,
      vhost: this.vhost,
      protocol: `${this.peer.protocolName} ${VERSION_NAMES[this.protocolVersion] ?? "3.1.1"}`,
      authMechanism: "none",
      ssl: this.peer.tls,
      tlsSession: null,
      state: this.state !== "open" ? "closing" : this.alarmHeld ? "blocked" : this.flow.paused ? "flow" : "running",
      connectedAt: this.connectedAt,
      channelMax: 0,
      frameMax: 0,
      heartbeat: this.keepAliveSeconds,
      clientProperties: { client_id: this.clientId },
      recvOct: this.stats.recvOct,
      sendOct: this.stats.sendOct,
      recvCnt: this.stats.recvCnt,
      sendCnt: this.stats.sendCnt,
      channels: [],
    };
  }
}
