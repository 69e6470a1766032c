/**
 * What an MQTT connection is to the rest of the node: its state (user, vhost, client id, session,
 * publisher, will), its output (packet-writer.ts: the client's Maximum Packet Size, topic aliases
 * to the client), publisher flow control and alarms, keep-alive, its record in the broker's
 * connection registry (so the management API lists and closes it like an AMQP one), and closing:
 * the will is published whenever the connection ends other than by the client's DISCONNECT (MQTT
 * 5: a DISCONNECT with reason 0x00); a will with a delay is parked (mqtt-will.ts). The reading
 * side — parsing, the CONNECT handshake, dispatch of packets — is MqttConnection's
 * (mqtt-connection.ts).
 *
 * Invariant: once `state` is "closed" the session and publisher are detached and nothing is read.
 */
import type { Duplex } from "node:stream";
import { parser, type Packet } from "mqtt-packet";
import { type ClientContext, type ConnectionInfo, PublishFlow, type Queue, type VHost } from "../broker/index.js";
import { TokenExpiry } from "../auth/oauth/token-expiry.js";
import { connectionName } from "../auth/peer-address.js";
import { type MqttNode } from "./mqtt-node.js";
import { MqttPublisher } from "./mqtt-publisher.js";
import { RC } from "./mqtt-reason-codes.js";
import { MqttSession } from "./mqtt-session.js";
import { sendWill, type Will } from "./mqtt-will.js";
import { KeepAlive } from "./keep-alive.js";
import { AlarmHold } from "./alarm-hold.js";
import { connectionRecord, sessionChannel, type MqttPeer } from "./connection-record.js";
import { PacketWriter } from "./packet-writer.js";
import { strictUtf8 } from "./strict-utf8.js";
import { TopicAliases } from "./topic-aliases.js";
import type { Qos2State } from "./qos2-state-store.js";


export abstract class MqttConnectionState {
  readonly name: string;
  readonly channelCount = 0;
  state: "handshake" | "open" | "closed" = "handshake";
  user = "";
  vhost = "";
  clientId = "";
  v5 = false;
  ctx!: ClientContext;
  protected protocolVersion = 4;
  protected vhostRef: VHost | null = null;
  protected session: MqttSession | null = null;
  /** The session's QoS 2 packet-identifier state (qos2-state-store.ts); set at CONNECT. */
  qos2!: Qos2State;
  protected publisher: MqttPublisher | null = null;
  protected will: Will | null = null;
  protected sessionExpiry = 0;
  /** True while mqtt-packet's parser holds no partial packet (only then may a chunk be read without it). */
  protected parserIdle = true;
  /** An MQTT 5 DISCONNECT set the session expiry to 0: the session's queues go at close. */
  protected sessionEnds = false;
  protected aliases: TopicAliases | null = null;
  /** Packets held behind a CONNECT (see the header); null otherwise. */
  protected held: Packet[] | null = null;
  protected keepAliveSeconds = 0;
  protected readonly keepAlive: KeepAlive;
  protected readonly tokenExpiry = new TokenExpiry(() => this.violation(RC.maximumConnectTime, "the OAuth 2.0 token expired"));
  protected readonly parserSettings = { protocolVersion: 4 };
  protected readonly parser = strictUtf8(parser(this.parserSettings));
  /** The output; PUBLISH and PUBACK are encoded straight into its batch (packet-writer.ts). */
  readonly packets: PacketWriter;
  /** Publisher flow control: a publisher outrunning a consumed queue is not read for a while. */
  readonly flow = new PublishFlow(this);
  /** A memory or disk alarm holding this publisher (alarm-hold.ts). */
  protected readonly alarm: AlarmHold;
  private readonly connectedAt = Date.now();
  protected readonly stats = { recvOct: 0, recvCnt: 0 };

  // The reading side (MqttConnection): what the stream and the parser bring.
  protected abstract onData(chunk: Buffer): void;
  protected abstract handle(p: Packet): void;
  protected abstract onMalformed(why: string): void;

  constructor(
    protected readonly node: MqttNode,
    protected readonly stream: Duplex,
    protected readonly peer: MqttPeer,
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

  send(packet: Packet): boolean {
    return this.packets.send(packet);
  }

  noLocalSkip(routingKey: string): readonly Queue[] | null {
    return this.session!.skipFor(routingKey);
  }

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

  consumingQueueDown(queue: string): void {
    if (this.state !== "open") return;
    this.node.log.warn("MQTT connection closed: a queue it consumed from went", { clientId: this.clientId, queue });
    // As RabbitMQ 3.10.8 (recorded): the socket closes, no DISCONNECT packet, and no will is sent.
    this.close(`queue '${queue}' it consumed from went`, false, null);
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
  protected close(why: string, withWill: boolean, reasonCode: number | null): void {
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

  info(): ConnectionInfo {
    const state = this.state !== "open" ? "closing" : this.alarm.held ? "blocked" : this.flow.paused ? "flow" : "running";
    const channels = this.state === "open" && this.vhostRef !== null ? [sessionChannel({ ...this.peer, name: this.name, user: this.user, connectedAt: this.connectedAt }, this.vhostRef, this.session, this.ctx.owner!)] : [];
    return connectionRecord(this.name, this.peer, this.protocolVersion, { user: this.user, vhost: this.vhost, clientId: this.clientId, state, connectedAt: this.connectedAt, keepAlive: this.keepAliveSeconds }, this.stats, this.packets, channels);
  }
}
