// Chaos case 8 (issue 42, "Faults"): `coney --workers 2` with 8 durable queues, 4 led by each
// worker, under a sustained confirmed publish load from a client on each worker to every queue,
// with a consumer on each worker. The worker leading half the queues is killed -9 under load.
// Measured and asserted: the surviving worker's queues never stop confirming (the longest gap
// between confirms of its queues, from before the kill to the end, stays under 1 s); the victim's
// queues are confirmed again within 15 s of the kill (served by the surviving worker, which opens
// the victim's queue groups from their stores at once, before the restart); every confirmed
// message is consumed in the end (0 lost; duplicates of redelivered messages allowed).
// Nothing waits on a timer to "let things happen": every step waits for an event (a confirm, a
// log line, a count), with bounds generous enough for a loaded 2-core machine.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "../workers/workers-harness.js";
import { leaderIndex, onWorker, pinnedApis, type PinnedApi } from "../workers/pinned-workers.js";
import { chaosFigures } from "./chaos-report.js";
import { Publisher, Tally, consumeAll, longestGap } from "./chaos-load.js";

/** Unconfirmed publishes each (publisher, queue) keeps in flight: a steady load, not a flood. */
const WINDOW = 8;
const VICTIM = 0;
const SURVIVOR = 1;

/** Four queue names led by each worker. */
function queuesLedBy(w: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < 4; i++) if (leaderIndex(`chaos-w-${i}`) === w) out.push(`chaos-w-${i}`);
  return out;
}

describe("chaos: a worker of `coney --workers 2` killed -9 under load", { timeout: 180_000 }, () => {
  let p: WorkersProcess;
  let apis: PinnedApi[] = [];
  const conns: ChannelModel[] = [];
  after(async () => {
    await Promise.all(conns.map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    for (const a of apis) a.close();
    await p?.close();
  });

  it("the other worker's queues never stop confirming, the victim's serve again within 15 s, no confirmed message lost", async (t) => {
    p = await startWorkers();
    apis = await pinnedApis(p.httpPort);
    const victimQueues = queuesLedBy(VICTIM);
    const survivorQueues = queuesLedBy(SURVIVOR);
    const all = [...victimQueues, ...survivorQueues];
    const localPort = (c: ChannelModel): number => (c as unknown as { connection: { stream: { localPort: number } } }).connection.stream.localPort;
    const connect = async (): Promise<ChannelModel> => {
      const c = await amqp.connect(p.amqpUrl);
      c.on("error", () => {});
      return c;
    };
    const connOn = async (w: number): Promise<ChannelModel> => {
      const c = await onWorker(apis, w, connect, localPort, (x) => x.close().catch(() => {}));
      conns.push(c);
      return c;
    };
    const setup = await (await connOn(SURVIVOR)).createChannel();
    for (const q of all) await setup.assertQueue(q, { durable: true });
    await setup.close();

    // Consumers on both workers (each consumes every queue, acking), publishers on both workers.
    const tally = new Tally();
    await consumeAll(await connOn(VICTIM), all, tally);
    await consumeAll(await connOn(SURVIVOR), all, tally);
    const onVictim = new Publisher("pv", await connOn(VICTIM), WINDOW);
    const onSurvivor = new Publisher("ps", await connOn(SURVIVOR), WINDOW);
    await onVictim.start(all);
    await onSurvivor.start(all);

    // Load runs until every queue has confirmed from both publishers.
    await eventually(() => all.every((q) => onVictim.confirmTimes.get(q)!.length >= 20 && onSurvivor.confirmTimes.get(q)!.length >= 20), 30_000, "every queue confirming from both workers");
    const watchFrom = Date.now();
    const victimPid = Number(((await apis[SURVIVOR]!.request("GET", "/api/nodes")).json as Array<{ name: string; os_pid: string }>).find((n) => n.name === apis[VICTIM]!.node)!.os_pid);
    // Confirms keep coming for a while before the kill (so the gap is measured across it).
    const before = onSurvivor.confirmed.size;
    await eventually(() => onSurvivor.confirmed.size >= before + 500, 30_000, "load before the kill");
    const killedAt = Date.now();
    process.kill(victimPid, "SIGKILL");

    // The victim's queues serve again: a confirm for each, after the kill, from the surviving worker's publisher.
    const firstAfter = (q: string): number | undefined => onSurvivor.firstConfirmAfter(q, killedAt);
    await eventually(() => victimQueues.every((q) => firstAfter(q) !== undefined), 60_000, "the victim's queues confirming again").catch((err: Error) => {
      throw new Error(`${err.message}\n${p.lines.slice(-20).map((l) => JSON.stringify(l)).join("\n")}`);
    });
    const serveAgainMs = Math.max(...victimQueues.map((q) => firstAfter(q)! - killedAt));
    // Load goes on a while after the victim is back, then stops; what is in flight settles.
    const after = onSurvivor.confirmed.size;
    await eventually(() => onSurvivor.confirmed.size >= after + 500, 30_000, "load after the victim's queues serve again");
    const watchTo = Date.now();
    await withTimeout(Promise.all([onSurvivor.stop(), onVictim.stop()]), 30_000, "the publishers' last confirms");
    const gapMs = longestGap(onSurvivor, survivorQueues, watchFrom, watchTo);

    // Every confirmed message is consumed: a fresh consumer on each queue takes what is left.
    const expected = new Set([...onVictim.confirmed, ...onSurvivor.confirmed]);
    const drain = await connect();
    conns.push(drain);
    await consumeAll(drain, all, tally, 500);
    await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
    const seen = new Set(tally.counts.keys());
    const f = chaosFigures(t, "8 worker kill -9 (--workers 2, 8 queues)", expected, seen, tally.duplicates, serveAgainMs, {
      longestGapMs: gapMs,
      survivorConfirms: survivorQueues.reduce((n, q) => n + onSurvivor.confirmTimes.get(q)!.length, 0),
      nackedWhileDown: onSurvivor.nacked,
    });
    assert.equal(f.lost, 0, "no confirmed message lost");
    assert.ok(gapMs < 1000, `the surviving worker's queues confirmed with no gap over 1 s (longest ${gapMs} ms)`);
    assert.ok(serveAgainMs <= 15_000, `the victim's queues served again within 15 s (${serveAgainMs} ms)`);
  });
});
