// A spread cluster (`--cluster-mode spread`): two nodes changing the same definitions at the same
// moment (within one etcd round trip) end with the same definitions, read through each node's
// management API (docs/CLUSTERING.md, "Concurrent changes: etcd's order on every node"). Two real
// nodes on a real etcd; in every round both nodes are sent, in one tick, a policy and a user's
// permissions with different values (HTTP), one binding created and deleted through both nodes
// (HTTP), one new exchange declared with a different type through each node over AMQP 0-9-1 and
// another over the management API (PUT), and one new queue with a different x-max-length (AMQP).
// Last in etcd's order wins for the policy, the permissions and the binding; of the two exchange
// declares, the first in etcd's order stands on both nodes and the other is refused with RabbitMQ's
// 406 PRECONDITION_FAILED "inequivalent arg 'type'" — exactly one client is told declare-ok, and
// the type every node lists is that client's (the losing PUT gets the status and body a local
// redeclare with another type gets); of the two queue declares, the one whose home claim
// won stands (its arguments listed everywhere), the other is refused the same way.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Channel } from "amqplib";
import { spreadCluster, type ApiAnswer } from "./spread-fixture.js";
import { eventually } from "../helpers/wait.js";

const ROUNDS = 25;
const TYPES = ["direct", "fanout"] as const;

describe("a spread cluster: concurrent changes of one definition on two nodes end equal on every node", () => {
  const sc = spreadCluster({ size: 2, protocols: false });

  /** What each node's management API says of the contested objects, as one comparable string per node. */
  const views = async (round: number): Promise<string[]> =>
    Promise.all(
      [0, 1].map(async (i) => {
        const read = async (path: string): Promise<unknown> => {
          const r = await sc.api(i, "GET", path);
          return r.status === 200 ? r.json : r.status;
        };
        const policy = (await read("/api/policies/%2F/conc-policy")) as { definition?: unknown } | number;
        const perm = (await read("/api/permissions/%2F/conc-user")) as { configure?: string } | number;
        const x = (await read(`/api/exchanges/%2F/conc-x-${round}`)) as { type?: string } | number;
        const hx = (await read(`/api/exchanges/%2F/conc-hx-${round}`)) as { type?: string } | number;
        const q = (await read(`/api/queues/%2F/conc-q-${round}`)) as { arguments?: Record<string, unknown> } | number;
        const bindings = (await read("/api/queues/%2F/conc-q/bindings")) as Array<{ source: string; routing_key: string }> | number;
        const keys = Array.isArray(bindings) ? bindings.filter((b) => b.source === "amq.direct").map((b) => b.routing_key).sort() : bindings;
        return JSON.stringify({ policy: typeof policy === "number" ? policy : policy.definition, configure: typeof perm === "number" ? perm : perm.configure, exchange: typeof x === "number" ? x : x.type, httpExchange: typeof hx === "number" ? hx : hx.type, queueArgs: typeof q === "number" ? q : q.arguments, bindings: keys });
      }),
    );

  sc.it("policies, permissions, bindings and exchanges changed through both nodes at once, many rounds: every node lists the same", async () => {
    assert.equal((await sc.api(0, "PUT", "/api/users/conc-user", { password: "conc", tags: "" })).status, 201);
    await sc.api(0, "PUT", "/api/permissions/%2F/conc-user", { configure: ".*", write: ".*", read: ".*" });
    const setup = await (await sc.connect(0)).createChannel();
    await setup.assertQueue("conc-q", { durable: true });
    const declarers: Channel[] = [];
    for (const i of [0, 1]) declarers.push(await (await sc.connect(i)).createChannel());
    const queueDeclarers: Channel[] = [];
    for (const i of [0, 1]) queueDeclarers.push(await (await sc.connect(i)).createChannel());
    for (const ch of [...declarers, ...queueDeclarers]) ch.on("error", () => {});

    // What a redeclare with another type is answered on one node (no race): the refusal a lost concurrent PUT must get.
    await sc.api(0, "PUT", "/api/exchanges/%2F/conc-local", { type: "direct", durable: true });
    const local = await sc.api(0, "PUT", "/api/exchanges/%2F/conc-local", { type: "fanout", durable: true });
    assert.ok(local.status >= 400, `a local redeclare with another type is refused: ${local.status}`);
    let firstReadEqual = 0;
    const refusals: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const http: Array<Promise<ApiAnswer>> = [];
      for (const i of [0, 1]) {
        http.push(sc.api(i, "PUT", "/api/policies/%2F/conc-policy", { pattern: "^conc-nothing$", definition: { "max-length": r * 10 + i }, "apply-to": "queues" }));
        http.push(sc.api(i, "PUT", "/api/permissions/%2F/conc-user", { configure: `^r${r}-n${i}`, write: ".*", read: ".*" }));
        // A binding created through one node and deleted through the other, and the other way round.
        http.push(sc.api(i, "POST", "/api/bindings/%2F/e/amq.direct/q/conc-q", { routing_key: `k${i}` }));
        http.push(sc.api(1 - i, "DELETE", `/api/bindings/%2F/e/amq.direct/q/conc-q/k${i}`));
      }
      const httpDeclares = [0, 1].map((i) => sc.api(i, "PUT", `/api/exchanges/%2F/conc-hx-${r}`, { type: TYPES[i], durable: true }));
      // One new exchange declared with another type, and one new queue with another x-max-length, through each node in the same tick.
      const outcome = (p: Promise<unknown>): Promise<string | null> => p.then(() => null, (err: Error) => err.message);
      const declares = [0, 1].map((i) => outcome(declarers[i]!.assertExchange(`conc-x-${r}`, TYPES[i]!, { durable: true })));
      const queueDeclares = [0, 1].map((i) => outcome(queueDeclarers[i]!.assertQueue(`conc-q-${r}`, { durable: true, arguments: { "x-max-length": 10 + i } })));
      const answers = await Promise.all(http);
      for (const a of answers) assert.ok(a.status < 300 || a.status === 404, `an HTTP change failed: ${a.status} ${a.text}`);
      const httpOutcomes = await Promise.all(httpDeclares);
      const outcomes = await Promise.all(declares);
      const queueOutcomes = await Promise.all(queueDeclares);
      // A refused declare closed its channel (as RabbitMQ's 406 does): open a new one for the next round.
      for (const [chs, os] of [[declarers, outcomes], [queueDeclarers, queueOutcomes]] as const) {
        for (const [i, o] of os.entries()) {
          if (o === null) continue;
          refusals.push(o);
          chs[i] = await (await sc.connect(i)).createChannel();
          chs[i]!.on("error", () => {});
        }
      }
      // Both answers are back: each waited for the other node to apply its change.
      const first = await views(r);
      if (first[0] === first[1]) firstReadEqual++;
      let last = first;
      await eventually(async () => {
        last = await views(r);
        return last[0] === last[1];
      }, 5000, `round ${r}: both nodes list the same definitions`).catch(() => undefined);
      assert.equal(last[0], last[1], `round ${r}: node0 and node1 differ`);
      const winners = outcomes.flatMap((o, i) => (o === null ? [TYPES[i]] : []));
      assert.equal(winners.length, 1, `round ${r}: exactly one of the two declares is told ok (${JSON.stringify(outcomes)})`);
      for (const o of outcomes) if (o !== null) assert.match(o, /406 \(PRECONDITION-FAILED\).*inequivalent arg 'type' for exchange 'conc-x-\d+' in vhost '\/'/);
      const listed = JSON.parse(last[0]!) as { exchange: string; httpExchange: string; queueArgs: Record<string, unknown> };
      // Through the management API: one PUT answered 2xx, the other the local refusal's status, and the type listed is the 2xx one's.
      const httpWinners = httpOutcomes.flatMap((a, i) => (a.status < 300 ? [TYPES[i]] : []));
      assert.equal(httpWinners.length, 1, `round ${r}: exactly one of the two PUTs is answered ok (${httpOutcomes.map((a) => `${a.status} ${a.text}`).join(" | ")})`);
      for (const a of httpOutcomes) if (a.status >= 300) assert.deepEqual([a.status, (a.json as { error?: string }).error, /inequivalent arg 'type' for exchange 'conc-hx-\d+' in vhost '\/'/.test(a.text)], [local.status, (local.json as { error?: string }).error, true]);
      assert.equal(listed.httpExchange, httpWinners[0], `round ${r}: the exchange listed is the one whose PUT was answered ok`);
      refusals.push(...httpOutcomes.filter((a) => a.status >= 300).map((a) => a.text));
      assert.equal(listed.exchange, winners[0], `round ${r}: the exchange listed is the one whose declare was told ok`);
      // Of the two queue declares, the one whose claim won stands: its client alone is told declare-ok.
      const queueWinners = queueOutcomes.flatMap((o, i) => (o === null ? [10 + i] : []));
      assert.equal(queueWinners.length, 1, `round ${r}: exactly one of the two queue declares is told ok (${JSON.stringify(queueOutcomes)})`);
      for (const o of queueOutcomes) if (o !== null) assert.match(o, /406 \(PRECONDITION-FAILED\).*inequivalent arg 'x-max-length' for queue 'conc-q-\d+' in vhost '\/'/);
      assert.equal(listed.queueArgs["x-max-length"], queueWinners[0], `round ${r}: the queue listed has the arguments of the declare told ok`);
    }
    console.log(`SPREAD-CONCURRENT-DEFINITIONS ${JSON.stringify({ rounds: ROUNDS, firstReadEqual, refusals: refusals.length })}`);
  });
});
