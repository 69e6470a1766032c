// `coney --workers 3`: queues live in queue groups whose stores (`<data>/groups/g<i>/`) are opened
// by the worker the primary's table names. A worker killed -9: its groups are opened by the live
// workers at once and its queues confirm and deliver again BEFORE its restart (delayed here with
// CONEY_WORKERS_RESTART_DELAY_MS), with every confirmed message; the restarted worker takes groups
// back (revoke, then assign) losing nothing; `coneyctl rebalance_queues` evens out queue leaders
// and /api/queues names each queue's new node. Real processes, real amqplib clients, real coneyctl.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel, ConsumeMessage } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { connectSurviving, queueNodes as nodesOfQueues } from "./workers-clients.js";
import { startWorkers, workerOf, type WorkersProcess } from "./workers-harness.js";
import { run } from "../cli/run-coneyctl.js";
import { queueGroupOf } from "../../src/broker/index.js";

const RESTART_DELAY_MS = 8000;
const QUEUES = Array.from({ length: 8 }, (_, i) => `gm-${i}`);

interface NodeRow {
  readonly name: string;
  readonly os_pid?: string;
  readonly queue_groups?: string[];
  readonly running: boolean;
}

describe("coney --workers 3: a dead worker's queue groups move to live workers, and back", () => {
  let p: WorkersProcess;
  const open: ChannelModel[] = [];
  let killedAt = 0;
  let victim = "";
  let victimSlot = "";
  let linesAtKill = 0;

  const connect = (): Promise<ChannelModel> => connectSurviving(p, open);
  const queueNodes = (): Promise<Map<string, string | undefined>> => nodesOfQueues(p);
  /** Publishes `bodies(q)` to every queue in `queues` with confirms, on a fresh connection (a live worker's). */
  const publish = async (queues: readonly string[], bodies: (q: string) => string[]): Promise<void> => {
    const c = await connect();
    const ch = await c.createConfirmChannel();
    for (const q of queues) for (const b of bodies(q)) ch.sendToQueue(q, Buffer.from(b), { persistent: true });
    await withTimeout(ch.waitForConfirms(), 15_000, "confirms");
    await ch.close();
  };
  /** Consumes `count` messages of `q` (acked), on a fresh connection: their bodies, and any delivered twice unflagged. */
  const drain = async (q: string, count: number): Promise<{ bodies: string[]; unflaggedDuplicates: number; redelivered: number }> => {
    const c = await connect();
    const ch = await c.createChannel();
    await ch.prefetch(100);
    const seen = new Set<string>();
    const bodies: string[] = [];
    let unflaggedDuplicates = 0;
    let redelivered = 0;
    await withTimeout(new Promise<void>((resolve, reject) => {
      void ch.consume(q, (m: ConsumeMessage | null) => {
        if (m === null) return reject(new Error(`${q}: consumer cancelled`));
        const body = m.content.toString();
        if (seen.has(body) && !m.fields.redelivered) unflaggedDuplicates++;
        if (!seen.has(body)) bodies.push(body);
        if (m.fields.redelivered) redelivered++;
        seen.add(body);
        ch.ack(m);
        if (bodies.length === count) resolve();
      });
    }), 15_000, `${count} messages of ${q}`);
    await ch.close();
    // Nothing beyond what was expected.
    const left = await c.createChannel();
    assert.equal((await left.checkQueue(q)).messageCount, 0, `${q}: nothing more than the ${count} expected`);
    await left.close();
    return { bodies, unflaggedDuplicates, redelivered };
  };

  before(async () => {
    p = await startWorkers(["--workers", "3"], { CONEY_WORKERS_RESTART_DELAY_MS: String(RESTART_DELAY_MS) });
  });
  after(async () => {
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "a connection's close").catch(() => {})));
    await p.close();
  });

  it("kill -9: the dead worker's groups open on live workers and its queues confirm and deliver again before its restart", async () => {
    const c = await connect();
    const ch = await c.createChannel();
    for (const q of QUEUES) await ch.assertQueue(q, { durable: true });
    await ch.close();
    let nodes = new Map<string, string | undefined>();
    await eventually(async () => {
      nodes = await queueNodes();
      return QUEUES.every((q) => typeof nodes.get(q) === "string");
    }, 10_000, "every queue with its leader");
    // The victim: the worker leading the most of them.
    const counts = new Map<string, number>();
    for (const q of QUEUES) counts.set(nodes.get(q)!, (counts.get(nodes.get(q)!) ?? 0) + 1);
    victim = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    victimSlot = workerOf(victim);
    const theirs = QUEUES.filter((q) => nodes.get(q) === victim);
    await publish(QUEUES, (q) => Array.from({ length: 50 }, (_, k) => `${q}:before-${k}`));

    const list = (await p.api("GET", "/api/nodes")).json as NodeRow[];
    const victimGroups = list.find((n) => n.name === victim)!.queue_groups!;
    assert.ok(victimGroups.length > 0, "the victim leads groups");
    linesAtKill = p.lines.length;
    killedAt = Date.now();
    process.kill(Number(list.find((n) => n.name === victim)!.os_pid), "SIGKILL");

    // Every one of its groups is opened by a live worker, with the messages its store holds.
    for (const g of victimGroups) {
      await p.logLine((l) => l.msg === "queue group opened" && l["group"] === g && l["node"] !== victim, `${g} opened by a live worker`, 15_000, linesAtKill);
    }
    const openedAt = Date.now();
    await eventually(async () => {
      const now = await queueNodes();
      return theirs.every((q) => now.get(q) !== undefined && now.get(q) !== victim);
    }, 10_000, "the victim's queues led by live workers in /api/queues");
    // They confirm again, through a live worker, and deliver every confirmed message.
    await publish(theirs, (q) => [`${q}:after`]);
    const confirmedAt = Date.now();
    for (const q of theirs) {
      const { bodies, unflaggedDuplicates } = await drain(q, 51);
      assert.deepEqual(bodies, [...Array.from({ length: 50 }, (_, k) => `${q}:before-${k}`), `${q}:after`], `${q}: every confirmed message, in order`);
      assert.equal(unflaggedDuplicates, 0);
    }
    for (const q of QUEUES.filter((x) => !theirs.includes(x))) assert.equal((await drain(q, 50)).bodies.length, 50);
    const deliveredAt = Date.now();
    // All of that before the primary restarted the victim.
    assert.ok(!p.lines.slice(linesAtKill).some((l) => l.msg === "worker started" && l["worker"] === victimSlot), "the victim was not restarted yet");
    console.log(`GROUP-MOVES ${JSON.stringify({ victim, queues: theirs.length, groups: victimGroups.length, opened_ms: openedAt - killedAt, confirmed_ms: confirmedAt - killedAt, delivered_ms: deliveredAt - killedAt })}`);
  });

  it("the restarted worker takes groups back (revoke, then assign) and nothing is lost or duplicated unflagged", async () => {
    // Published while the victim is still down: into the groups its survivors hold now.
    await publish(QUEUES, (q) => Array.from({ length: 20 }, (_, k) => `${q}:mid-${k}`));
    await p.logLine((l) => l.msg === "worker serving" && l["worker"] === victimSlot, "the victim's restart serving", RESTART_DELAY_MS + 30_000, linesAtKill);
    const back = await p.logLine((l) => l.msg === "queue groups rebalanced", "groups moved back to the restarted worker", 30_000, linesAtKill);
    assert.ok((back["moves"] as Array<{ to: string }>).some((m) => m.to === victimSlot), "groups moved to the restarted worker");
    await eventually(async () => {
      const list = (await p.api("GET", "/api/nodes")).json as NodeRow[];
      return (list.find((n) => n.name === victim)?.queue_groups?.length ?? 0) > 0;
    }, 10_000, "the restarted worker leading groups");
    for (const q of QUEUES) {
      const { bodies, unflaggedDuplicates } = await drain(q, 20);
      assert.deepEqual(bodies, Array.from({ length: 20 }, (_, k) => `${q}:mid-${k}`), `${q}: the 20 confirmed during the outage`);
      assert.equal(unflaggedDuplicates, 0);
    }
  });

  it("coneyctl rebalance_queues evens out queue leaders; /api/queues shows each queue's new node", async () => {
    // Ten more queues, all in groups one worker leads: queue leaders are uneven.
    const table = (await p.api("GET", "/api/nodes")).json as NodeRow[];
    const crowded = table.sort((a, b) => (a.name < b.name ? -1 : 1))[0]!;
    const itsGroups = new Set(crowded.queue_groups!);
    const extra: string[] = [];
    for (let i = 0; extra.length < 10; i++) if (itsGroups.has(`g${queueGroupOf("/", `gm-extra-${i}`, 16)}`)) extra.push(`gm-extra-${i}`);
    const c = await connect();
    const ch = await c.createChannel();
    for (const q of extra) await ch.assertQueue(q, { durable: true });
    await ch.close();
    await publish(extra, (q) => [`${q}:1`, `${q}:2`, `${q}:3`]);
    const all = [...QUEUES, ...extra];
    // A consumer holds each extra queue's 3 messages unacked across the rebalance.
    const holder = await connect();
    const held = await holder.createChannel();
    await held.prefetch(10);
    const cancelled = new Set<string>();
    const got = new Map<string, number>();
    for (const q of extra) {
      await held.consume(q, (m: ConsumeMessage | null) => {
        if (m === null) cancelled.add(q);
        else got.set(q, (got.get(q) ?? 0) + 1);
      });
    }
    await eventually(() => extra.every((q) => got.get(q) === 3), 10_000, "every extra queue's 3 messages delivered and held");
    let before = new Map<string, string | undefined>();
    await eventually(async () => {
      before = await queueNodes();
      return all.every((q) => typeof before.get(q) === "string");
    }, 10_000, "every queue with its leader");
    const spreadOf = (m: Map<string, string | undefined>): number => {
      const per = new Map<string, number>(table.map((n) => [n.name, 0]));
      for (const q of all) per.set(m.get(q)!, (per.get(m.get(q)!) ?? 0) + 1);
      return Math.max(...per.values()) - Math.min(...per.values());
    };

    const res = await run(["--port", String(p.httpPort), "rebalance_queues"]);
    assert.equal(res.code, 0, res.stderr);
    const lines = res.stdout.trim().split("\n");
    assert.equal(lines[0], "Re-balancing leaders of all queues...");
    assert.equal(lines[1], "Node name\tNumber of quorum queues\tNumber of classic queues\tNumber of streams");
    const printed = new Map(lines.slice(2).map((l) => l.split("\t")).map(([node, , classic]) => [node!, Number(classic)]));
    assert.equal(printed.size, 3, "one row per worker");

    // Every worker follows the new table within moments (the answering one before it answered).
    let after = new Map<string, string | undefined>();
    await eventually(async () => {
      after = await queueNodes();
      return [...printed].every(([node, n]) => all.filter((q) => after.get(q) === node).length === n);
    }, 10_000, "/api/queues agreeing with the printed counts");
    assert.ok(all.some((q) => after.get(q) !== before.get(q)), "some queue moved to another worker");
    assert.ok(spreadOf(after) < spreadOf(before), `leaders more even: ${spreadOf(before)} → ${spreadOf(after)}`);
    for (const [node, n] of printed) assert.equal(n, all.filter((q) => after.get(q) === node).length, `${node}: the printed count is /api/queues'`);
    // A moved queue's consumer was cancelled (consumer cancel notification); its held messages,
    // returned when the channel closes, stayed in the group's store for the new leader.
    const moved = extra.filter((q) => after.get(q) !== before.get(q));
    assert.ok(moved.length > 0, "some extra queue moved");
    await eventually(() => moved.every((q) => cancelled.has(q)), 10_000, "the moved queues' consumers cancelled");
    assert.ok(extra.filter((q) => !moved.includes(q)).every((q) => !cancelled.has(q)), "the others' consumers kept");
    await held.close();
    for (const q of extra) {
      const { bodies, redelivered } = await drain(q, 3);
      assert.deepEqual(bodies, [`${q}:1`, `${q}:2`, `${q}:3`], `${q}: its messages${moved.includes(q) ? " moved with its group" : ""}, once`);
      assert.equal(redelivered, 3, `${q}: delivered before, so flagged redelivered`);
    }
  });
});
