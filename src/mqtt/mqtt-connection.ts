/**
 * One MQTT connection over a byte stream (a TCP socket, or a WebSocket as a stream): packet
 * parsing (mqtt-packet), the CONNECT handshake, dispatch of packets to the session (subscribe,
 * deliveries, PUBACK) and the publisher, keep-alive, and closing. Registered in the broker's
 * connection registry once connected, so the management API lists and closes it like an AMQP one.
 * Output is packet-writer.ts (the client's Maximum Packet Size, topic aliases to the client).
 *
 * MQTT's rule for bad input is to close the connection: a malformed packet, a first packet that
 * is not CONNECT, a second CONNECT, a wildcard in a PUBLISH topic, an invalid topic alias, more
 * unacknowledged QoS 1/2 PUBLISH packets than the Receive Maximum (MQTT 5) all close it (MQTT 5: after a DISCONNECT with the reason).
 * The will is published whenever the connection ends other than by the client's DISCONNECT
 * (MQTT 5: a DISCONNECT with reason 0x00); a will with a delay is parked (mqtt-will.ts).
 *
 * A token login, leftovers on another worker (remote-session-queues.ts) and a SUBACK on a node others follow are decided
 * asynchronously: packets behind are held, the socket not read, until then. A token login ends when the token expires (MQTT 5: DISCONNECT 0xA0, as RabbitMQ).
 */
import type { Duplex } from "node:stream";
import { parser, type IConnectPacket, type IPublishPacket, type Packet } from "mqtt-packet";
import { type ClientConnection, type ClientContext, clientContext, type ConnectionInfo, type FlowHost, PublishFlow, type Queue, type VHost } from "../broker/index.js";
import { TokenExpiry } from "../auth/oauth/token-expiry.js";
import { connectionName } from "../auth/peer-address.js";
import { logInMqtt, type LoginOutcome } from "./mqtt-login.js";
import { afterRemoteLeftovers } from "./remote-session-queues.js";
import { acceptingConnack, connectTerms, refusingConnack, type ConnectTerms } from "./mqtt-connect.js";
import { type MqttNode, protocolLabel, type SessionHolder } from "./mqtt-node.js";
import { disconnectExpiry } from "./disconnect-expiry.js";
import { MqttPublisher, type PublisherLink } from "./mqtt-publisher.js";
import { RC } from "./mqtt-reason-codes.js";
import { MqttSession, type SessionLink } from "./mqtt-session.js";
import { isValidTopicName } from "./mqtt-topic.js";
import { subscribeViolation } from "./subscribe-checks.js";
import { cancelParkedWill, sendWill, type Will } from "./mqtt-will.js";
import { KeepAlive } from "./keep-alive.js";
import { AlarmHold } from "./alarm-hold.js";
import { connectionRecord, sessionChannel, type MqttPeer } from "./connection-record.js";
import { PacketWriter } from "./packet-writer.js";
import { readHotPackets } from "./hot-packets.js";
import { strictUtf8 } from "./strict-utf8.js";
import { TopicAliases } from "./topic-aliases.js";
import type { Qos2State } from "./qos2-state-store.js";

/** Before CONNECT, a client may send at most this much (RabbitMQ's max_packet_size_unauthenticated). */
const MAX_UNAUTHENTICATED_PACKET = 65_536;

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
  /** The session's QoS 2 packet-identifier state (qos2-state-store.ts); set at CONNECT. */
  qos2!: Qos2State;
  private publisher: MqttPublisher | null = null;
  private will: Will | null = null;
  private sessionExpiry = 0;
  /** True while mqtt-packet's parser holds no partial packet (only then may a chunk be read without it). */
  private parserIdle = true;
  /** An MQTT 5 DISCONNECT set the session expiry to 0: the session's queues go at close. */
  private sessionEnds = false;
  private aliases: TopicAliases | null = null;
  /** Packets held behind a CONNECT (see the header); null otherwise. */
  private held: Packet[] | null = null;
  private keepAliveSeconds = 0;
  private readonly keepAlive: KeepAlive;
  private readonly tokenExpiry = new TokenExpiry(() => this.violation(RC.maximumConnectTime, "the OAuth 2.0 token expired"));
  private readonly parserSettings = { protocolVersion: 4 };
  private readonly parser = strictUtf8(parser(this.parserSettings));
  /** The output; PUBLISH and PUBACK are encoded straight into its batch (packet-writer.ts). */
  readonly packets: PacketWriter;
  /** Publisher flow control: a publisher outrunning a consumed queue is not read for a while. */
  readonly flow = new PublishFlow(this);
  /** A memory or disk alarm holding this publisher (alarm-hold.ts). */
  private readonly alarm: AlarmHold;
  private readonly connectedAt = Date.now();
  private readonly stats = { recvOct: 0, recvCnt: 0 };

  constructor(
    private readonly node: MqttNode,
    private readonly stream: Duplex,
    private readonly peer: MqttPeer,
  ) {
    this.name = connectionName(peer);
    this.packets = new PacketWriter(stream, this.parserSettings);
    this.keepAlive = new KeepAlive(() => this.onKeepAliveExpired());
    this.alarm = new AlarmHold(node.alarms, () => this.stream.pause(), () => {
      if (this.state !== "closed" && !this.flow.paused) this.stream.resume();
    });
    this.keepAlive.arm(node.settings.connectTimeout, false);
    this.parser.on("packet", (p: Packet) => this.handle(p));
    this.parser.on("error", (err: Error) => this.onMalformed(err.message));
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.on("drain", () => this.session?.deliveries.drained());
    stream.on("error", (err) => node.log.debug("MQTT socket error", { err: err.message }));
    // A WebSocket stream ends without "close" (ws creates it with emitClose off): both count.
    stream.on("end", () => this.close("socket closed", true, null));
    stream.on("close", () => this.close("socket closed", true, null));
  }

  get writable(): boolean {
    return this.packets.writable;
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  get hasConsumers(): boolean {
    return this.session !== null && this.session.deliveries.hasConsumers;
  }

  pauseForFlow(): void {
    this.stream.pause();
  }

  resumeFromFlow(): void {
    if (this.state !== "closed" && !this.alarm.held && this.held === null) this.stream.resume();
  }

  // ------------------------------------------------------------ input

  private onData(chunk: Buffer): void {
    if (this.state === "closed") return;
    this.keepAlive.touch();
    this.stats.recvOct += chunk.length;
    if (this.vhostRef !== null) this.vhostRef.stats.recvOct += chunk.length;
    const limit = this.state === "handshake" ? MAX_UNAUTHENTICATED_PACKET : this.node.settings.maxPacketSize;
    if (this.parserIdle && this.readingHot) {
      // Whole plain PUBLISH and PUBACK packets first, without the stream parser (hot-packets.ts);
      // isOpen, a getter (not a narrowed field read): a packet's handler may have closed the connection.
      const at = readHotPackets(chunk, this.v5, limit, this);
      if (at === chunk.length || !this.isOpen) return;
      if (at > 0) chunk = chunk.subarray(at);
    }
    const buffered = this.parser.parse(chunk);
    this.parserIdle = buffered === 0;
    // The state may have changed while parsing (a packet closed the connection).
    if (buffered > limit) this.violation(RC.packetTooLarge, `packet larger than ${limit} bytes`);
  }

  /** hot-packets.ts may read packets while the connection is open and holds no packets back. */
  get readingHot(): boolean {
    return this.state === "open" && this.held === null;
  }

  hotPublish(p: IPublishPacket): void {
    this.stats.recvCnt++;
    this.onPublish(p);
  }
  hotPuback(packetId: number): void {
    this.stats.recvCnt++;
    this.session!.deliveries.acknowledged(packetId, undefined);
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
    if (this.held !== null) {
      this.held.push(p);
      return;
    }
    this.stats.recvCnt++;
    if (this.state === "handshake") {
      if (p.cmd === "connect") this.onConnect(p);
      else this.violation(RC.protocolError, `first packet is ${p.cmd}, not connect`);
      return;
    }
    switch (p.cmd) {
      case "publish":
        return this.onPublish(p);
      case "puback":
        return this.session!.deliveries.acknowledged(p.messageId!, p.reasonCode);
      case "pubrec":
        return this.session!.deliveries.received(p.messageId!, p.reasonCode);
      case "pubrel":
        return this.publisher!.released(p.messageId!);
      case "pubcomp":
        return this.session!.deliveries.completed(p.messageId!);
      case "subscribe": {
        // A bad filter closes the connection before anything is bound (MQTT 3.1.1 §4.8). SUBACK may wait for the other nodes (mqtt-session.ts).
        const bad = subscribeViolation(p);
        return bad !== null ? this.violation(bad.reasonCode, bad.why) : this.holdUntil(this.session!.subscribe(p));
      }
      case "unsubscribe":
        return this.session!.unsubscribe(p);
      case "pingreq":
        return void this.send({ cmd: "pingresp" });
      case "disconnect": {
        const change = disconnectExpiry(this.sessionExpiry, this.v5 ? p.properties?.sessionExpiryInterval : undefined);
        if (change.kind === "protocol-error") return this.violation(RC.protocolError, "session expiry set in DISCONNECT after a CONNECT without one");
        if (change.kind === "end") this.sessionEnds = true;
        if (change.kind === "change") this.session?.changeExpiry(change.seconds);
        if (change.kind === "end" || change.kind === "change") this.sessionExpiry = change.kind === "end" ? 0 : change.seconds;
        // MQTT 5: any reason but 0x00 (normal disconnection) still sends the will (RabbitMQ, §3.14).
        return this.close("client disconnected", this.v5 && (p.reasonCode ?? 0) > 0, null);
      }
      default:
        return this.violation(RC.protocolError, `unexpected ${p.cmd} packet`);
    }
  }

  private onPublish(p: IPublishPacket): void {
    this.alarm.check();
    if (this.aliases !== null) {
      const r = this.aliases.resolve(p.topic, p.properties?.topicAlias);
      if (!r.ok) return this.violation(r.invalidAlias ? RC.topicAliasInvalid : RC.protocolError, r.why);
      p.topic = r.topic;
    } else if (p.properties?.topicAlias !== undefined) {
      return this.violation(RC.topicAliasInvalid, "topic alias without a Topic Alias Maximum");
    }
    if (!isValidTopicName(p.topic)) return this.violation(RC.topicNameInvalid, `invalid topic name '${p.topic}' in PUBLISH`);
    this.publisher!.publish(p);
  }

  private onConnect(p: IConnectPacket): void {
    this.protocolVersion = p.protocolVersion ?? 4;
    this.v5 = this.protocolVersion === 5;
    this.parserSettings.protocolVersion = this.protocolVersion;
    const asked = connectTerms(p, this.v5, this.node.settings.serverKeepAlive);
    if (!asked.ok) {
      // A bad will topic is a malformed CONNECT: MQTT 5 can say so, 3.1.1 has no code for it.
      if (asked.reasonCode === RC.topicNameInvalid && !this.v5) return this.violation(asked.reasonCode, asked.why);
      return this.refuseConnect(asked.reasonCode, asked.why);
    }
    const { terms } = asked;
    const outcome = afterRemoteLeftovers(this.node.broker, logInMqtt(this.node, p, this.peer, terms.clientId), terms.clientId, terms.cleanStart, this, `${this.peer.peerHost}:${this.peer.peerPort}`);
    if (!(outcome instanceof Promise)) return this.loggedIn(p, terms, outcome);
    this.holdUntil(outcome.catch((err: unknown): LoginOutcome => ({ ok: false, reasonCode: RC.unspecifiedError, why: err instanceof Error ? err.message : String(err) })), (o) => this.loggedIn(p, terms, o));
  }

  /** Holds the packets behind this one, the socket not read, until `until` resolves (null: nothing to wait for); then `then`, then the held packets in order (one that holds again gathers the rest). */
  private holdUntil<T>(until: Promise<T> | null, then: (value: T) => void = () => undefined): void {
    if (until === null) return;
    this.held = [];
    this.stream.pause();
    void until.then((value) => {
      const held = this.held ?? [];
      this.held = null;
      if (this.state === "closed") return;
      then(value);
      for (const h of held) this.handle(h);
      this.resumeFromFlow();
    });
  }

  private loggedIn(p: IConnectPacket, terms: ConnectTerms, outcome: LoginOutcome): void {
    if (!outcome.ok) return this.refuseConnect(outcome.reasonCode, outcome.why);
    const { login } = outcome;
    const s = this.node.settings;
    this.user = login.user;
    this.vhost = login.vhost.name;
    this.vhostRef = login.vhost;
    this.clientId = terms.clientId;
    this.sessionExpiry = terms.expiry;
    this.ctx = clientContext(login.permissions, this, "mqtt", `${this.peer.peerHost}:${this.peer.peerPort}`);
    this.state = "open";
    // A session for this client id elsewhere ends now (its will is published), before this one looks at the queues.
    this.node.claim(this.vhost, this.clientId, this);
    if (terms.cleanStart) this.node.qos2.drop(this.vhost, this.clientId);
    this.qos2 = this.node.qos2.of(this.vhost, this.clientId, terms.expiry > 0);
    const counters = this.node.broker.stats.protocol(protocolLabel(this.protocolVersion));
    const session = new MqttSession(this.node, this, login.vhost, terms.expiry, Math.min(s.prefetch, terms.receiveMaximum), counters);
    let present: boolean;
    try {
      cancelParkedWill(this.node, this.ctx, login.vhost, this.clientId);
      present = session.open(terms.cleanStart);
    } catch (err) {
      this.node.release(this.vhost, this.clientId, this);
      this.state = "handshake";
      return this.refuseConnect(RC.notAuthorized, err instanceof Error ? err.message : String(err));
    }
    this.will = p.will ?? null;
    this.session = session;
    this.publisher = new MqttPublisher(this.node, this, login.vhost, counters, session.channelStats);
    this.packets.vhostTraffic = login.vhost.stats;
    if (this.v5) {
      this.packets.maxPacketSize = terms.maxPacketSize;
      this.aliases = new TopicAliases(s.topicAliasMaximum, Math.min(terms.topicAliasMaximum, s.topicAliasMaximum));
      if (terms.topicAliasMaximum > 0 && s.topicAliasMaximum > 0) this.packets.aliases = this.aliases;
    }
    this.node.broker.connections.add(this);
    this.node.broker.stats.connectionCreated++;
    this.send(acceptingConnack(this.v5, present, terms, s));
    this.keepAliveSeconds = terms.keepAlive;
    this.keepAlive.arm(this.keepAliveSeconds * 1.5, true);
    this.tokenExpiry.arm(login.expiresAt);
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

  send(packet: Packet): boolean {
    return this.packets.send(packet);
  }

  noLocalSkip(routingKey: string): readonly Queue[] | null {
    return this.session!.skipFor(routingKey);
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
    if (this.flow.paused || this.alarm.held) return this.keepAlive.arm(this.keepAliveSeconds * 1.5, true);
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
    this.tokenExpiry.clear();
    this.flow.stop();
    this.alarm.release();
    if (wasOpen && this.v5 && reasonCode !== null) this.send({ cmd: "disconnect", reasonCode });
    if (wasOpen) this.teardown(withWill);
    this.node.log.debug("MQTT connection closed", { peer: this.name, clientId: this.clientId, reason: why });
    this.packets.flush();
    this.stream.end();
    setTimeout(() => this.stream.destroy(), 1000).unref();
  }

  private teardown(withWill: boolean): void {
    this.session?.release();
    if (this.sessionEnds) this.session?.end();
    // Not when another connection took the session over: the state is its own now.
    if ((this.sessionEnds || this.sessionExpiry === 0) && this.node.holds(this.vhost, this.clientId, this)) this.node.qos2.drop(this.vhost, this.clientId);
    this.publisher?.closed();
    const broker = this.node.broker;
    broker.ownerClosed(this);
    if (withWill && this.will && this.vhostRef) sendWill(this.node, this.ctx, this.vhostRef, this.will, this.clientId, this.sessionExpiry);
    if (broker.connections.get(this.name) === this) {
      broker.connections.remove(this);
      broker.stats.connectionClosed++;
    }
    this.node.release(this.vhost, this.clientId, this);
  }

  // ------------------------------------------------------------ management

  info(): ConnectionInfo {
    const state = this.state !== "open" ? "closing" : this.alarm.held ? "blocked" : this.flow.paused ? "flow" : "running";
    const channels = this.state === "open" && this.vhostRef !== null ? [sessionChannel({ ...this.peer, name: this.name, user: this.user, connectedAt: this.connectedAt }, this.vhostRef, this.session, this.ctx.owner!)] : [];
    return connectionRecord(this.name, this.peer, this.protocolVersion, { user: this.user, vhost: this.vhost, clientId: this.clientId, state, connectedAt: this.connectedAt, keepAlive: this.keepAliveSeconds }, this.stats, this.packets, channels);
  }
}
