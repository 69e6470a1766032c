// A spread cluster (`--cluster-mode spread`): one stream name declared through two nodes at the same
// moment (within one etcd round trip) while publishers on both nodes publish to it with confirms
// (docs/CLUSTERING.md, "One name declared on two nodes at once"). Each node creates its copy at once
// and the first claim in etcd wins everywhere; a new stream holds what is routed to it until its
// claim is decided, so the losing copy never confirms anything. Every confirmed message must be
// readable afterwards from every node (AMQP 0-9-1, `x-stream-offset: first`). Two real nodes on a
// real etcd, amqplib clients; rounds of new names declared through both nodes in one tick, publishes
// through both nodes until both declare-oks are back. A publish made before its stream existed is
// returned (mandatory) and not counted; a nacked one was refused to its publisher and not counted.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Channel } from "amqplib";
import { spreadCluster } from "./spread-fixture.js";
import { eventually } from "../helpers/wait.js";
import { declareRaceClients, declareRaceRound, lostClaimsIn } from "./declare-race.js";
import { RawStreamClient } from "../stream/raw-stream-client.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { CMD, RC } from "../../src/stream/protocol.js";

const ROUNDS = 6;
const NAMES = 3;
/** Publish bursts per round at most (one message per name and node each). */
const MAX_BURSTS = 60;

describe("a spread cluster: one stream declared on two nodes at once never strands a confirmed message", () => {
  const sc = spreadCluster({ size: 2, protocols: false, streams: true });

  /** Every message of stream `s` read through `ch` from its first offset, until `want` are all there (or 5 s). */
  const readAll = async (ch: Channel, s: string, want: ReadonlySet<string>): Promise<Set<string>> => {
    const got = new Set<string>();
    const { consumerTag } = await ch.consume(
      s,
      (m) => {
        if (m === null) return;
        got.add(m.content.toString());
        ch.ack(m);
      },
      { arguments: { "x-stream-offset": "first" } },
    );
    await eventually(() => [...want].every((id) => got.has(id)), 5000, `${s}: every confirmed message`).catch(() => undefined);
    await ch.cancel(consumerTag);
    return got;
  };

  sc.it("declares a stream through both nodes in one tick, publishes with confirms through both: every confirmed message is read through each node", async () => {
    const { conns, declarers, pubs, returned } = await declareRaceClients((i) => sc.connect(i), NAMES);
    const readers: Channel[] = [];
    for (const c of conns) {
      const ch = await c.createChannel();
      await ch.prefetch(1000);
      readers.push(ch);
    }

    let confirmedTotal = 0;
    const stranded = [0, 0];
    const missing: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const names = Array.from({ length: NAMES }, (_, k) => `srace-${r}-${k}`);
      // Both nodes' declares of every name leave in this tick.
      const confirmed = await declareRaceRound(r, names, pubs, () => Promise.all(names.flatMap((s, k) => declarers.map((chs) => chs[k]!.assertQueue(s, { durable: true, arguments: { "x-queue-type": "stream" } })))), MAX_BURSTS, 20_000);
      for (const s of names) {
        const want = new Set(confirmed.get(s)!.filter((id) => !returned.has(id)));
        confirmedTotal += want.size;
        if (want.size === 0) continue;
        // Read through each node: the home's log, wherever it is, holds every confirmed one.
        for (const [i, ch] of readers.entries()) {
          const got = await readAll(ch, s, want);
          const lost = [...want].filter((id) => !got.has(id));
          stranded[i]! += lost.length;
          missing.push(...lost.slice(0, 3).map((id) => `${id} (via node${i})`));
        }
      }
    }
    const log = sc.cluster.nodes.map((n) => n.log).join("\n");
    const { lostClaims, moved } = lostClaimsIn(log);
    console.log(`SPREAD-STREAM-DECLARE-RACE ${JSON.stringify({ rounds: ROUNDS, names: NAMES, confirmed: confirmedTotal, lostClaims, moved, stranded })}`);
    assert.ok(confirmedTotal > 0, "some publishes were routed and confirmed");
    // The race was run, not dodged: some node lost a claim.
    assert.ok(lostClaims > 0, "no claim was lost: the declares did not race");
    assert.deepEqual(stranded, [0, 0], `confirmed messages not readable through every node: ${missing.join(", ")}`);
  });

  sc.it("a stream created over the stream protocol through both nodes at once with other arguments: one Create is ok, the other stream_already_exists, both nodes list the ok'd one", async () => {
    const clients = [await RawStreamClient.login(await sc.streamPort(0)), await RawStreamClient.login(await sc.streamPort(1))];
    sc.onClose(() => clients.forEach((c) => c.close()));
    for (let r = 0; r < 6; r++) {
      const name = `screate-${r}`;
      const codes = await Promise.all(clients.map((c, i) => c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(name).map([["max-length-bytes", String(1_000_000 + i)]]).frame(), CMD.create).then((a) => a.code)));
      assert.equal(codes.filter((c) => c === RC.ok).length, 1, `round ${r}: exactly one Create is ok (${JSON.stringify(codes)})`);
      assert.ok(codes.includes(RC.streamAlreadyExists), `round ${r}: the other is stream_already_exists (${JSON.stringify(codes)})`);
      const want = 1_000_000 + codes.indexOf(RC.ok);
      for (const i of [0, 1]) {
        await eventually(async () => ((await sc.api(i, "GET", `/api/queues/%2F/${name}`)).json as { arguments?: Record<string, unknown> } | null)?.arguments?.["x-max-length-bytes"] === want, 5000, `node${i} lists ${name} with the ok'd Create's max-length-bytes`);
      }
    }
  });
});
