// `coney --workers 2`: a planned move of a queue group (`coneyctl rebalance_queues`, and the
// automatic move-back once a killed worker's restart serves) carries what only memory holds —
// transient messages of a durable queue, every message of a non-durable queue — to the new leader
// through the group's store: every message there once, in queue order, a redelivered one still
// flagged (src/broker/operations/queue-carry.ts). Real processes, real amqplib clients, real coneyctl.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel, ConsumeMessage } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { connectSurviving, queueNodes as nodesOfQueues } from "./workers-clients.js";
import { startWorkers, workerOf, type LogLine, type WorkersProcess } from "./workers-harness.js";
import { run } from "../cli/run-coneyctl.js";
import { queueGroupOf } from "../../src/broker/index.js";

const COUNT = 12;

interface NodeRow {
  readonly name: string;
  readonly os_pid?: string;
  readonly queue_groups?: string[];
}

const groupOf = (q: string): string => `g${queueGroupOf("/", q, 16)}`;
const bodiesOf = (q: string, round: string): string[] => Array.from({ length: COUNT }, (_, k) => `${q}:${round}-${k}`);

describe("coney --workers 2: a planned group move carries messages held only in memory", () => {
  let p: WorkersProcess;
  const open: ChannelModel[] = [];
  /** Per group of the first worker: one durable and one non-durable queue, so any move takes both kinds. */
  const durable: string[] = [];
  const transientQueues: string[] = [];
  const all = (): string[] => [...durable, ...transientQueues];

  const connect = (): Promise<ChannelModel> => connectSurviving(p, open);
  const queueNodes = (): Promise<Map<string, string | undefined>> => nodesOfQueues(p);
  /**
   * Publishes COUNT messages to every queue (two of three transient), confirmed, then takes each
   * queue's head with basic.get and requeues it: it sits at the head flagged redelivered.
   */
  const fill = async (round: string): Promise<void> => {
    const c = await connect();
    const ch = await c.createConfirmChannel();
    for (const q of all()) bodiesOf(q, round).forEach((b, k) => ch.sendToQueue(q, Buffer.from(b), { persistent: k % 3 === 0 }));
    await withTimeout(ch.waitForConfirms(), 15_000, "confirms");
    for (const q of all()) {
      const m = await ch.get(q, { noAck: false });
      assert.ok(m !== false, `${q}: a head to take`);
      assert.equal(m.content.toString(), `${q}:${round}-0`);
      ch.nack(m, false, true);
    }
    // Answered after the nacks (one channel, in order): every head is back.
    for (const q of all()) assert.equal((await ch.checkQueue(q)).messageCount, COUNT, `${q}: its ${COUNT} messages ready`);
    await ch.close();
  };
  /** Consumes every queue: each holds exactly its COUNT messages, in order, only the first `flagged` flagged redelivered. */
  const drainAll = async (round: string, moved: readonly string[], flagged = 1): Promise<void> => {
    const c = await connect();
    const ch = await c.createChannel();
    await ch.prefetch(COUNT * 2);
    for (const q of all()) {
      const got: Array<{ body: string; redelivered: boolean }> = [];
      await withTimeout(new Promise<void>((resolve, reject) => {
        void ch.consume(q, (m: ConsumeMessage | null) => {
          if (m === null) return reject(new Error(`${q}: consumer cancelled`));
          got.push({ body: m.content.toString(), redelivered: m.fields.redelivered });
          ch.ack(m);
          if (got.length === COUNT) resolve();
        }, { consumerTag: `drain-${q}` });
      }), 15_000, `${COUNT} messages of ${q}`);
      await ch.cancel(`drain-${q}`);
      const how = moved.includes(q) ? "moved with its group" : "not moved";
      assert.deepEqual(got.map((g) => g.body), bodiesOf(q, round), `${q} (${how}): every message once, in order`);
      assert.deepEqual(got.map((g) => g.redelivered), got.map((_, k) => k < flagged), `${q} (${how}): only the ${flagged} delivered before flagged redelivered`);
      assert.equal((await ch.checkQueue(q)).messageCount, 0, `${q}: nothing more`);
    }
    await ch.close();
  };
  /** Each group named opened by its new leader (a log line from `from` on). */
  const opened = async (groups: Iterable<string>, from: number, by?: (l: LogLine) => boolean): Promise<LogLine[]> => {
    const out: LogLine[] = [];
    for (const g of groups) out.push(await p.logLine((l) => l.msg === "queue group opened" && l["group"] === g && (by === undefined || by(l)), `${g} opened`, 30_000, from));
    return out;
  };

  before(async () => {
    p = await startWorkers(["--workers", "2"], { CONEY_WORKERS_RESTART_DELAY_MS: "1500" });
  });
  after(async () => {
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "a connection's close").catch(() => {})));
    await p.close();
  });

  it("coneyctl rebalance_queues: durable queues' transient messages and non-durable queues' messages move, in order", async () => {
    const table = ((await p.api("GET", "/api/nodes")).json as NodeRow[]).sort((a, b) => (a.name < b.name ? -1 : 1));
    const crowded = new Set(table[0]!.queue_groups!);
    assert.ok(crowded.size > 0, "the first worker leads groups");
    // Every queue in the first worker's groups: the leaders are uneven, so the rebalance moves some of them.
    for (const g of crowded) {
      let i = 0;
      while (groupOf(`hc-d-${i}`) !== g) i++;
      durable.push(`hc-d-${i}`);
      i = 0;
      while (groupOf(`hc-n-${i}`) !== g) i++;
      transientQueues.push(`hc-n-${i}`);
    }
    const c = await connect();
    const ch = await c.createChannel();
    for (const q of durable) await ch.assertQueue(q, { durable: true });
    for (const q of transientQueues) await ch.assertQueue(q, { durable: false });
    await ch.close();
    await eventually(async () => {
      const nodes = await queueNodes();
      return all().every((q) => typeof nodes.get(q) === "string");
    }, 10_000, "every queue with its leader");
    await fill("r");
    // A consumer on each queue holds its first 2 messages unacked across the move.
    const holder = await connect();
    const held = await holder.createChannel();
    await held.prefetch(2);
    const cancelled = new Set<string>();
    const got = new Map<string, number>();
    for (const q of all()) {
      await held.consume(q, (m: ConsumeMessage | null) => {
        if (m === null) cancelled.add(q);
        else got.set(q, (got.get(q) ?? 0) + 1);
      });
    }
    await eventually(() => all().every((q) => got.get(q) === 2), 10_000, "every queue's first 2 messages delivered and held");
    const before = await queueNodes();

    const from = p.lines.length;
    const res = await run(["--port", String(p.httpPort), "rebalance_queues"]);
    assert.equal(res.code, 0, res.stderr);
    const moves = (await p.logLine((l) => l.msg === "queue groups rebalanced", "the rebalance's moves", 15_000, from))["moves"] as Array<{ group: string }>;
    assert.ok(moves.length > 0, "groups moved");
    const movedGroups = new Set(moves.map((m) => m.group));
    await opened(movedGroups, from);
    const moved = all().filter((q) => movedGroups.has(groupOf(q)));
    await eventually(async () => {
      const now = await queueNodes();
      return moved.every((q) => now.get(q) !== before.get(q));
    }, 10_000, "the moved queues led by the other worker in /api/queues");
    // The moved queues' consumers were cancelled; their held messages come back when the channel closes.
    await eventually(() => moved.every((q) => cancelled.has(q)), 10_000, "the moved queues' consumers cancelled");
    await held.close();
    await drainAll("r", moved, 2);
    const carried = p.lines.slice(from).filter((l) => l.msg === "queue group given up").reduce((n, l) => n + (l["carried"] as number), 0);
    assert.ok(carried > 0, "the old leader wrote what only memory held");
  });

  it("the automatic move-back to a killed worker's restart carries them too", async () => {
    const table = ((await p.api("GET", "/api/nodes")).json as NodeRow[]).sort((a, b) => (a.name < b.name ? -1 : 1));
    const victim = table.find((n) => (n.queue_groups?.length ?? 0) > 0)!;
    const slot = workerOf(victim.name);
    const from = p.lines.length;
    process.kill(Number(victim.os_pid), "SIGKILL");
    // The survivor serves every group; then the queues are filled there (a non-durable queue may have gone with its worker: declared again).
    await opened(victim.queue_groups!, from, (l) => l["node"] !== victim.name);
    const c = await connect();
    const ch = await c.createChannel();
    for (const q of durable) await ch.assertQueue(q, { durable: true });
    for (const q of transientQueues) await ch.assertQueue(q, { durable: false });
    await ch.close();
    await fill("b");

    await p.logLine((l) => l.msg === "worker serving" && l["worker"] === slot, "the victim's restart serving", 30_000, from);
    const back = (await p.logLine((l) => l.msg === "queue groups rebalanced" && (l["moves"] as Array<{ to: string }>).some((m) => m.to === slot), "groups moved back to the restarted worker", 30_000, from))["moves"] as Array<{ group: string; to: string }>;
    const movedGroups = new Set(back.filter((m) => m.to === slot).map((m) => m.group));
    assert.ok(movedGroups.size > 0, "groups moved back to the restarted worker");
    await opened(movedGroups, from, (l) => l["node"] === victim.name);
    const moved = all().filter((q) => movedGroups.has(groupOf(q)));
    assert.ok(moved.some((q) => durable.includes(q)) && moved.some((q) => transientQueues.includes(q)), "both kinds moved");
    await eventually(async () => {
      const now = await queueNodes();
      return moved.every((q) => now.get(q) === victim.name);
    }, 10_000, "the moved queues led by the restarted worker in /api/queues");
    await drainAll("b", moved);
  });
});
