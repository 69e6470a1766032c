/**
 * One MQTT connection over a byte stream (a TCP socket, or a WebSocket as a stream), its reading
 * side: packet parsing (mqtt-packet, and hot-packets.ts for whole plain PUBLISH and PUBACK), the
 * CONNECT handshake, and dispatch of packets to the session (subscribe, deliveries, PUBACK) and
 * the publisher. Its state, output, keep-alive, registry record and closing are
 * MqttConnectionState's (mqtt-connection-state.ts).
 *
 * MQTT's rule for bad input is to close the connection: a malformed packet, a first packet that
 * is not CONNECT, a second CONNECT, a wildcard in a PUBLISH topic, an invalid topic alias, more
 * unacknowledged QoS 1/2 PUBLISH packets than the Receive Maximum (MQTT 5) all close it (MQTT 5: after a DISCONNECT with the reason).
 *
 * A token login, leftovers on another worker (remote-session-queues.ts) and a SUBACK on a node others follow are decided
 * asynchronously: packets behind are held, the socket not read, until then. A token login ends when the token expires (MQTT 5: DISCONNECT 0xA0, as RabbitMQ).
 */
import { type IConnectPacket, type IPublishPacket, type Packet } from "mqtt-packet";
import { type ClientConnection, clientContext, type FlowHost } from "../broker/index.js";
import { logInMqtt, type LoginOutcome } from "./mqtt-login.js";
import { afterRemoteLeftovers } from "./remote-session-queues.js";
import { acceptingConnack, connectTerms, refusingConnack, type ConnectTerms } from "./mqtt-connect.js";
import { protocolLabel, type SessionHolder } from "./mqtt-node.js";
import { disconnectExpiry } from "./disconnect-expiry.js";
import { MqttPublisher, type PublisherLink } from "./mqtt-publisher.js";
import { RC } from "./mqtt-reason-codes.js";
import { MqttSession, type SessionLink } from "./mqtt-session.js";
import { isValidTopicName } from "./mqtt-topic.js";
import { subscribeViolation } from "./subscribe-checks.js";
import { cancelParkedWill } from "./mqtt-will.js";
import { readHotPackets } from "./hot-packets.js";
import { TopicAliases } from "./topic-aliases.js";
import { MqttConnectionState } from "./mqtt-connection-state.js";

/** Before CONNECT, a client may send at most this much (RabbitMQ's max_packet_size_unauthenticated). */
const MAX_UNAUTHENTICATED_PACKET = 65_536;

export class MqttConnection extends MqttConnectionState implements ClientConnection, SessionLink, PublisherLink, SessionHolder, FlowHost {
  protected onData(chunk: Buffer): void {
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

  protected onMalformed(why: string): void {
    if (this.state === "handshake" && why === "Invalid protocol version") {
      // MQTT 3.1.1 §3.1.2.2: answer 0x01 before closing (a 3.1.1 CONNACK: the version is unknown).
      this.send({ cmd: "connack", returnCode: 1, sessionPresent: false });
    }
    this.violation(RC.malformedPacket, `malformed packet: ${why}`);
  }

  protected handle(p: Packet): void {
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
    const outcome = afterRemoteLeftovers(this.node, logInMqtt(this.node, p, this.peer, terms.clientId), terms.clientId, terms.cleanStart, this, `${this.peer.peerHost}:${this.peer.peerPort}`);
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
}
