/**
 * Which worker leads each queue of `coney --workers N`, and the links that reach the others
 * (docs/CLUSTERING.md, "One machine: `coney --workers N`"). A queue's group is
 * `fnv1a(vhost + "\0" + name) mod G` — a choice every worker makes alone, so two workers never
 * each create their own queue of one name — and its leader is the worker the primary's group table
 * names for that group, once that worker opened the group's store (worker-group-moves.ts). A
 * group without a leader, or assigned here and not yet open, is held over a down port. This worker
 * holds the others' queues as RemoteQueues
 * over inter-node links (src/node-link) on Unix sockets `<links>/w<i>.sock`, one per worker,
 * never through the primary.
 *
 * Links come and go with the workers: until a peer's link is up (it is starting, or restarting
 * after it died) its queues are held over a port that is down — publishes to them are not
 * confirmed, consumes are refused with RabbitMQ's "home node … is down or inaccessible" — and
 * once the link is up every one of its queues is held over it again. A lost link cancels this
 * worker's consumers of the peer's queues (consumer cancel notification), as RabbitMQ does when a
 * queue's node is lost.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { connect, type Server } from "node:net";
import { join } from "node:path";
import type { Broker, QueueLeaderPort, QueuePlacement } from "../broker/index.js";
import { queueGroupOf } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import type { Logger } from "../logging/logger.js";
import { connectNodeLink, listenForNodeLinks, type LeaderLink } from "../node-link/node-link.js";
import { dropExclusiveQueuesOf, RepliesToWorkers } from "./worker-exclusive.js";
import { DownPort } from "../node-link/down-port.js";

export interface WorkerLinks {
  /** Where every worker's link socket is. */
  readonly dir: string;
  /** Hex: every worker proves it to the others (the links' handshake). */
  readonly secret: string;
  /** Each worker's node name, by index. */
  readonly nodeNames: readonly string[];
}

const RETRY_MS = 200;

/** Which worker leads each group now, as this worker knows it (worker-group-moves.ts keeps it). */
export interface GroupLeaders {
  /** G: how many groups the queues are spread over. */
  readonly count: number;
  /** Whether this worker leads group `g` now (its store is open here). */
  leadsHere(g: number): boolean;
  /** The worker the table names for group `g`; null while nobody leads it (a move under way). */
  workerOf(g: number): number | null;
}

export const linkSocketPath = (dir: string, index: number): string => join(dir, `w${index}.sock`);

export class WorkerQueues implements QueuePlacement {
  private readonly ports: QueueLeaderPort[];
  private server: Server | null = null;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Workers whose link was lost and is not up again. */
  private readonly lost = new Set<number>();
  /** The port of a group nobody leads now (revoked, or assigned here and being opened): its queues wait, nothing is confirmed. */
  private readonly unled: QueueLeaderPort;

  constructor(
    private readonly broker: Broker,
    private readonly index: number,
    private readonly links: WorkerLinks,
    private readonly logger: Logger,
  ) {
    this.ports = links.nodeNames.map((name) => new DownPort(name));
    this.unled = new DownPort(links.nodeNames[index]!);
  }

  get workers(): number {
    return this.links.nodeNames.length;
  }

  /** Set before `start`: the group table's view (worker-group-moves.ts). */
  groups: GroupLeaders | null = null;

  /** The group of queue `name` of `vhost` (QueuePlacement.groupOf): the name hash, whatever a definitions file recorded. */
  groupOf(vhost: string, name: string): number {
    return queueGroupOf(vhost, name, this.groups!.count);
  }

  leaderOf(vhost: string, name: string): QueueLeaderPort | null {
    const g = this.groupOf(vhost, name);
    return this.groups!.leadsHere(g) ? null : this.portOfGroup(g);
  }

  /** The port to group `g`'s leader, for a group not led here: a down port while nobody leads it or it is not open yet here. */
  portOfGroup(g: number): QueueLeaderPort {
    const w = this.groups!.workerOf(g);
    if (w === null || w === this.index) return this.unled;
    return this.ports[w]!;
  }

  portOf(node: string): QueueLeaderPort | null {
    const w = this.links.nodeNames.indexOf(node);
    if (w === this.index) return null;
    if (w === -1) return new DownPort(node);
    // A record of a worker whose link was lost and is not back came from its dead process (its
    // queues were dropped with the link, worker-exclusive.ts): refused, not held for ever.
    if (this.lost.has(w)) throw new BrokerError("notFound", `node '${node}' was lost; its connections' exclusive queues went with it`);
    return this.ports[w]!;
  }

  /** Starts reaching the others' queues: before definitions are restored, so restored queues they lead are RemoteQueues. */
  start(): void {
    this.broker.placeQueuesWith(this);
    this.broker.directReply.reachOthers(this.links.nodeNames[this.index]!, new RepliesToWorkers(this.links.nodeNames, (w) => this.ports[w]!));
    for (let w = 0; w < this.workers; w++) if (w !== this.index) this.reach(w);
  }

  /**
   * Serves this worker's queues to the others: only once its definitions and messages are
   * restored. A link served earlier would find no queue (no vhost even) for a peer's publish and
   * take it as unroutable — confirmed and dropped.
   */
  async serve(): Promise<void> {
    mkdirSync(this.links.dir, { recursive: true });
    const path = linkSocketPath(this.links.dir, this.index);
    // A socket file left by this worker's previous process (killed): nobody listens on it any more.
    if (existsSync(path)) rmSync(path, { force: true });
    const secret = Buffer.from(this.links.secret, "hex");
    const server = listenForNodeLinks(this.broker, { secret, node: this.links.nodeNames[this.index]! }, (err) => this.logger.warn("an inter-worker link was refused", { err }));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // Exclusive: a worker's listen would otherwise go through node:cluster's primary, which would
      // keep the socket (and take connections for it) after this worker died.
      server.listen({ path, exclusive: true }, () => resolve());
    });
    this.server = server;
  }

  /**
   * Resolves once the links to every other worker are up, or after `timeoutMs` (a peer that is
   * down, restarting, does not hold a start back). Awaited before the client listeners bind, so a
   * client of a worker just started does not see the others' queues as down for the first moments.
   */
  async linksUp(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    const allUp = (): boolean => this.ports.every((p, w) => w === this.index || p.up);
    while (!allUp() && !this.closed && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const p of this.ports) if (p.up && "close" in p) (p as LeaderLink).close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Connects to worker `w` until it answers; once up, its queues are held over the link. */
  private reach(w: number): void {
    if (this.closed) return;
    const socket = connect(linkSocketPath(this.links.dir, w));
    const retry = (): void => {
      socket.destroy();
      if (this.closed) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.reach(w);
      }, RETRY_MS);
      this.timers.add(t);
    };
    socket.once("error", retry);
    socket.once("connect", () => {
      socket.removeListener("error", retry);
      connectNodeLink(socket, { secret: Buffer.from(this.links.secret, "hex"), node: this.links.nodeNames[this.index]! }).then(
        (link) => this.up(w, link),
        () => retry(),
      );
    });
  }

  private up(w: number, link: LeaderLink): void {
    if (this.closed) return link.close();
    this.ports[w] = link;
    this.lost.delete(w);
    this.logger.info("link to a worker up", { worker: this.links.nodeNames[w] });
    link.onLost(() => {
      if (this.ports[w] === link) this.ports[w] = new DownPort(this.links.nodeNames[w]!);
      if (!this.closed) this.logger.warn("link to a worker lost", { worker: this.links.nodeNames[w] });
      this.lost.add(w);
      dropExclusiveQueuesOf(this.broker, this.links.nodeNames[w]!);
      this.reach(w);
    });
    // Every queue of w's, held over the down port until now (or the lost link before), over this one.
    for (const v of this.broker.vhosts.values()) {
      for (const q of [...v.queues.values()]) {
        // Its own queues and the exclusive queues of its connections (held for it whatever the name's hash says).
        if (!q.leadsElsewhere || q.leaderNode !== this.links.nodeNames[w]) continue;
        this.broker.leadQueueElsewhere(v.name, { name: q.name, durable: q.durable, autoDelete: q.autoDelete, exclusiveOwner: q.exclusiveOwner, arguments: q.arguments, group: null }, link);
      }
    }
  }
}
