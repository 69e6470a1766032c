#!/usr/bin/env node
// Drives the spread cluster of scripts/spread-netns.sh (one network namespace per node, issue 42's
// brief s6-i42-netns) with real amqplib clients from the host namespace, and prints figures:
//   0. every node's /api/nodes lists the three nodes running, each with its own address;
//   1. queues declared through each node are homed there; a publisher with confirms on each node
//      to a queue homed on the next, a consumer on the third: every message, in order;
//   2. faults under load (a publisher with confirms and a consumer on every node, to and of every
//      queue): (a) kill -9 of cz3, (b) cz3's veth end down — cut from etcd, the other nodes and the
//      host's clients — then up, (c) cz3 cut from etcd only (a blackhole route to etcd's address in
//      its namespace), then healed. Per fault: confirmed, lost, duplicates, the longest gap between
//      confirms of the other nodes' queues, the time until cz3's queues confirm again through a
//      survivor (adopted), cz3's fence after the cut (from its log), the time to take its store back.
// Exit 1 when a confirmed message is lost or a check fails. Run as root after `spread-netns.sh up`
// (and `npm run build`: it uses the chaos suite's load from dist/test/cluster/chaos-load.js);
// `node scripts/spread-netns-check.mjs [a|b|c ...]` runs the chosen faults (default all three).
/* global Buffer, setTimeout, fetch, AbortSignal */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import amqp from "amqplib";
import { Publisher, Tally, consumeAll, longestGap } from "../dist/test/cluster/chaos-load.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SH = join(ROOT, "scripts", "spread-netns.sh");
const STATE = process.env.CONEY_NETNS_DIR ?? "/tmp/coney-netns";
const LEASE_MS = Number(process.env.CONEY_NETNS_LEASE ?? 3) * 1000;
const NODES = ["cz1", "cz2", "cz3"].map((ns) => ({ ns, name: `coney@${ns}`, ip: `10.77.0.1${ns.slice(2)}` }));
const VICTIM = NODES[2];
const SURVIVORS = NODES.slice(0, 2);
const QUEUES_PER_NODE = 2;
const WINDOW = 4;
const PHASE_CONFIRMS = 300;
/** The adopter logs "serving an adopted store" just after it can: a confirm through it may come this much before the line. */
const ADOPTION_SLACK_MS = 500;
const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

const failures = [];
const check = (ok, what) => {
  console.log(`  ${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function eventually(f, ms, what) {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (await f()) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`timed out (${ms} ms) waiting for ${what}`);
    await sleep(100);
  }
}
const sh = (...args) => execFileSync(SH, args, { encoding: "utf8" }).trim();
const log = (n) => {
  try {
    return readFileSync(join(STATE, `${n.ns}.log`), "utf8");
  } catch {
    return "";
  }
};
/** Times (ms) of node `n`'s log lines holding `msg` (and `extra`), from `since`. */
function logTimes(n, msg, since, extra = "") {
  const out = [];
  for (const line of log(n).split("\n")) {
    // A repeat within 10 s is logged with "(n more in the last 10 s)" after the text.
    if (!line.includes(`"msg":"${msg}`) || !line.includes(extra)) continue;
    const at = Date.parse(JSON.parse(line).time);
    if (at >= since) out.push(at);
  }
  return out;
}
async function api(n, path, method = "GET", body) {
  const headers = { ...AUTH, ...(body === undefined ? {} : { "content-type": "application/json" }) };
  const r = await fetch(`http://${n.ip}:15672${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  return { status: r.status, json: r.status === 204 ? null : await r.json() };
}
const conns = [];
async function connect(n) {
  const c = await amqp.connect(`amqp://guest:guest@${n.ip}:5672`, { timeout: 5000 });
  c.on("error", () => {});
  conns.push(c);
  return c;
}
async function closeAll() {
  for (const c of conns.splice(0)) await Promise.race([c.close().catch(() => undefined), sleep(2000)]);
}

async function nodesListed() {
  console.log("0. /api/nodes on each node");
  for (const n of NODES) {
    await eventually(async () => (await api(n, "/api/nodes")).json.filter((x) => x.running).length === 3, 30_000, `${n.ns} to list three running nodes`);
    const nodes = (await api(n, "/api/nodes")).json;
    const overview = (await api(n, "/api/overview")).json;
    const seen = nodes.map((x) => `${x.name}@${(x.contexts ?? []).map((c) => c.ip).join("/")}`);
    console.log(`  ${n.ns}: ${seen.join(" ")}`);
    for (const m of NODES) {
      const rec = nodes.find((x) => x.name === m.name);
      check(rec?.running === true && (rec.contexts ?? []).some((c) => c.ip === m.ip), `${n.ns}'s /api/nodes lists ${m.name} running at ${m.ip}`);
      const amqpL = overview.listeners.find((l) => l.node === m.name && l.protocol === "amqp");
      check(amqpL?.ip_address === m.ip, `${n.ns}'s /api/overview lists ${m.name}'s AMQP listener at ${m.ip} (${amqpL?.ip_address})`);
    }
  }
}

/** Durable queues declared through each node; returns their names by node. */
async function declareQueues(prefix) {
  const homed = new Map();
  for (const n of NODES) {
    const ch = await (await connect(n)).createChannel();
    const names = [];
    for (let i = 0; i < QUEUES_PER_NODE; i++) {
      const q = `${prefix}-${n.ns}-${i}`;
      await ch.assertQueue(q, { durable: true });
      await ch.purgeQueue(q);
      names.push(q);
    }
    homed.set(n, names);
  }
  for (const [n, names] of homed) {
    for (const q of names) {
      await eventually(async () => (await api(NODES[0], `/api/queues/%2F/${q}`)).json.node === n.name, 10_000, `${q} listed as homed on ${n.name}`);
    }
  }
  await closeAll();
  return homed;
}

async function crossNodes(homed) {
  console.log("1. publish through each node to a queue homed on the next, consume from the third");
  for (let i = 0; i < 3; i++) {
    const [via, home, from] = [NODES[i], NODES[(i + 1) % 3], NODES[(i + 2) % 3]];
    const q = homed.get(home)[0];
    const ch = await (await connect(via)).createConfirmChannel();
    const N = 500;
    const t0 = Date.now();
    for (let k = 0; k < N; k++) ch.sendToQueue(q, Buffer.from(String(k)), { persistent: true });
    await ch.waitForConfirms();
    const confirmMs = Date.now() - t0;
    const got = [];
    const cch = await (await connect(from)).createChannel();
    await cch.prefetch(100);
    await new Promise((resolve) => {
      void cch.consume(q, (m) => {
        got.push(Number(m.content.toString()));
        cch.ack(m);
        if (got.length === N) resolve();
      });
    });
    const inOrder = got.every((v, k) => v === k);
    check(inOrder, `${N} confirmed through ${via.ns} to ${q} (homed on ${home.ns}) in ${confirmMs} ms, consumed through ${from.ns} in order`);
    await closeAll();
  }
}

/** One fault under load: `cut` at the start, `heal` once the victim's queues are served by a survivor. */
async function fault(label, homed, cut, heal) {
  console.log(`2${label}`);
  const all = [...homed.values()].flat();
  const victimQueues = homed.get(VICTIM);
  const survivorQueues = all.filter((q) => !victimQueues.includes(q));
  const tally = new Tally();
  for (const n of NODES) await consumeAll(await connect(n), all, tally);
  const publishers = new Map();
  for (const n of NODES) publishers.set(n, new Publisher(`${label[0]}:${n.ns}`, await connect(n), WINDOW));
  for (const p of publishers.values()) await p.start(all);
  const surviving = SURVIVORS.map((n) => publishers.get(n));
  const victimPublisher = publishers.get(VICTIM);
  const survivorConfirmsAfter = (p, at) => survivorQueues.reduce((s, q) => s + p.confirmsAfter(q, at), 0);
  await eventually(() => [...publishers.values()].every((p) => all.every((q) => p.confirmTimes.get(q).length >= 20)), 30_000, "every queue confirming from every node");
  const watchFrom = Date.now();
  await eventually(() => surviving.every((p) => survivorConfirmsAfter(p, watchFrom) >= PHASE_CONFIRMS), 30_000, "load before the fault");

  const cutAt = Date.now();
  const logFrom = log(VICTIM).length;
  cut();
  const firstAfter = (q, at) => {
    const t = surviving.map((p) => p.firstConfirmAfter(q, at)).filter((x) => x !== undefined);
    return t.length === 0 ? undefined : Math.min(...t);
  };
  let adoptedAt = 0;
  await eventually(() => {
    adoptedAt = Math.min(Infinity, ...SURVIVORS.flatMap((n) => logTimes(n, "spread cluster: serving an adopted store", cutAt, `"store":"${VICTIM.name}"`)));
    return adoptedAt < Infinity && victimQueues.every((q) => firstAfter(q, adoptedAt - ADOPTION_SLACK_MS) !== undefined);
  }, 30_000, "the victim's store adopted and its queues confirming through a survivor");
  const serveAgainMs = Math.max(...victimQueues.map((q) => firstAfter(q, adoptedAt - ADOPTION_SLACK_MS))) - cutAt;
  const fencedAt = logTimes(VICTIM, "spread cluster: fencing this node: it stops serving its queues", cutAt)[0];
  const leaseGone = cutAt + LEASE_MS;
  const confirmedByVictimAfterLease = all.reduce((s, q) => s + victimPublisher.confirmsAfter(q, leaseGone), 0);

  const healAt = Date.now();
  heal();
  await eventually(() => log(VICTIM).slice(logFrom).includes("spread cluster: store taken back"), 60_000, "the victim to take its store back");
  await eventually(() => {
    const l = log(VICTIM).slice(logFrom);
    return l.includes('"msg":"spread cluster: node serving"') && l.split("spread cluster: link to a node up").length - 1 >= 2;
  }, 30_000, "the victim serving again, linked to both others");
  const takenBackMs = logTimes(VICTIM, "spread cluster: store taken back", healAt)[0] - healAt;
  // A new client on it, as an operator's would reconnect: publishes to every queue, consumes them.
  const again = new Publisher(`${label[0]}:${VICTIM.ns}-again`, await connect(VICTIM), WINDOW);
  await again.start(all);
  await consumeAll(await connect(VICTIM), all, tally);
  const servedAt = Date.now();
  await eventually(() => surviving.every((p) => survivorConfirmsAfter(p, servedAt) >= PHASE_CONFIRMS) && all.every((q) => again.confirmsAfter(q, servedAt) >= 5), 30_000, "load after the victim serves again");
  const watchTo = Date.now();
  const everyPublisher = [...publishers.values(), again];
  await Promise.race([Promise.all(everyPublisher.map((p) => p.stop())), sleep(30_000)]);
  const gapMs = Math.max(...surviving.map((p) => longestGap(p, survivorQueues, watchFrom, watchTo)));
  const expected = new Set(everyPublisher.flatMap((p) => [...p.confirmed]));
  await consumeAll(await connect(SURVIVORS[0]), all, tally, 500);
  await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
  const lost = tally.missing(expected);
  const figures = {
    confirmed: expected.size,
    lost,
    duplicates: tally.duplicates,
    unflaggedRepeats: tally.unflaggedRepeats,
    longestGapOthersMs: gapMs,
    fencedAfterMs: fencedAt === undefined ? null : fencedAt - cutAt,
    adoptedAfterMs: adoptedAt - cutAt,
    servedAgainThroughSurvivorMs: serveAgainMs,
    confirmedByVictimToItsClientsAfterLease: confirmedByVictimAfterLease,
    storeTakenBackAfterHealMs: takenBackMs,
  };
  console.log(`  FIGURES ${label[0]} ${JSON.stringify(figures)}`);
  check(lost === 0, `no confirmed message lost (${lost} of ${expected.size})`);
  check(gapMs < 1000, `the other nodes' queues never paused over 1 s (longest ${gapMs} ms)`);
  check(serveAgainMs <= 15_000, `the victim's queues confirmed again through a survivor within 15 s (${serveAgainMs} ms)`);
  check(tally.unflaggedRepeats === 0, "every repeated delivery flagged redelivered");
  if (label[0] !== "a") check(fencedAt !== undefined && fencedAt - cutAt <= LEASE_MS + 1000, `the victim fenced within its lease (${figures.fencedAfterMs} ms, lease ${LEASE_MS} ms)`);
  if (label[0] === "c") check(confirmedByVictimAfterLease === 0, "the victim confirmed nothing to its own clients after its lease expired");
  await closeAll();
}

const FAULTS = {
  a: ["a kill -9 of cz3, then started again on its data dir", () => sh("kill", VICTIM.ns), () => sh("start", VICTIM.ns)],
  b: ["b cz3's veth end down (cut from etcd, the other nodes and the host), then up", () => sh("cut", VICTIM.ns), () => sh("heal", VICTIM.ns)],
  c: ["c cz3 cut from etcd only (blackhole route to 10.77.0.2 in cz3), then the route removed", () => sh("cut-etcd", VICTIM.ns), () => sh("heal-etcd", VICTIM.ns)],
};

try {
  const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["a", "b", "c"];
  await nodesListed();
  const homed = await declareQueues("nn");
  await crossNodes(homed);
  for (const f of chosen) {
    const [label, cut, heal] = FAULTS[f];
    await fault(label, homed, cut, heal);
    await nodesListed();
  }
} catch (err) {
  failures.push(String(err && err.message ? err.message : err));
  console.log(`  FAIL ${failures.at(-1)}`);
} finally {
  await closeAll();
}
console.log(failures.length === 0 ? "PASS" : `FAILED: ${failures.length} check(s)`);
process.exit(failures.length === 0 ? 0 : 1);
