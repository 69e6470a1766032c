/**
 * Two real brokers (each on port 0, with its own store) joined by a real inter-node link over TCP
 * loopback: node B leads the queues, node A holds a RemoteQueue for each queue B leads that it is
 * told about (Broker.leadQueueElsewhere, the seam the group table will drive).
 */
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before } from "node:test";
import { acceptNodeLink, connectNodeLink, type LeaderLink, type LinkSession } from "../../src/node-link/node-link.js";
import type { Queue } from "../../src/broker/index.js";
import type { SlabPool } from "../../src/listeners/slab-pool.js";
import type { FieldTable } from "../../src/broker/values/field-value.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";

export interface TwoNodes {
  readonly a: TestBroker;
  readonly b: TestBroker;
  readonly secret: Buffer;
  /** B's link server's port. */
  readonly port: number;
  /** The sockets of B's authenticated sessions, in order (a test may pause or cut one; these read into slabs: link-reads.ts). */
  readonly accepted: Socket[];
  readonly sessions: LinkSession[];
}

/** `slabsB`: the pool B's link reads return slabs to (link-reads.ts); by default one per link. `amqpSlabsA`: A's AMQP listener's read pool. */
export function useTwoNodes(opts: { readonly slabsB?: SlabPool; readonly amqpSlabsA?: SlabPool } = {}): TwoNodes {
  const raw: Socket[] = [];
  const fx = { accepted: [] as Socket[], sessions: [] as LinkSession[], secret: randomBytes(32) } as unknown as TwoNodes & { server: Server; a: TestBroker; b: TestBroker; port: number };
  before(async () => {
    fx.a = await startTestBroker(opts.amqpSlabsA ? { readSlabs: opts.amqpSlabsA } : {});
    fx.b = await startTestBroker();
    fx.server = createServer((s) => {
      raw.push(s);
      acceptNodeLink(fx.b.broker, s, { secret: fx.secret, node: "rabbit@b", ...(opts.slabsB ? { slabs: opts.slabsB } : {}) }).then(
        (session) => {
          fx.sessions.push(session);
          fx.accepted.push(session.socket);
        },
        () => {},
      );
    });
    await new Promise<void>((r) => fx.server.listen(0, "127.0.0.1", r));
    fx.port = (fx.server.address() as { port: number }).port;
  });
  after(async () => {
    // Destroying the socket the server gave also ends the one its handle moved to (link-reads.ts).
    for (const s of raw) s.destroy();
    await new Promise((r) => fx.server.close(r));
    await fx.a?.close();
    await fx.b?.close();
  });
  return fx;
}

/** A new link from A to B (authenticated with `secret`; A's reads return slabs to `slabs` when given; A offers `features`, by default all it knows). */
export async function linkAToB(fx: TwoNodes, secret = fx.secret, slabs?: SlabPool, features?: number): Promise<LeaderLink> {
  const socket = connect(fx.port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return connectNodeLink(socket, { secret, node: "rabbit@a", ...(slabs ? { slabs } : {}), ...(features !== undefined ? { features } : {}) });
}

/** Declares `name` on B (durable classic unless `args` say otherwise) and tells A that B leads it. */
export function queueOnB(fx: TwoNodes, link: LeaderLink, name: string, args: FieldTable = {}): { onB: Queue; onA: Queue } {
  const ctx = { permissions: fx.b.broker.checkerFor("guest"), owner: null };
  const spec = { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: args };
  const { queue: onB } = fx.b.broker.declareQueue(ctx, "/", spec, false);
  const onA = fx.a.broker.leadQueueElsewhere("/", spec, link);
  return { onB, onA };
}
