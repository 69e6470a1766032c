/**
 * One round of a declare race (docs/CLUSTERING.md, "One name declared on two nodes at once"):
 * `declare` sends the declares of `names` through both nodes in this tick; meanwhile every publisher
 * publishes one message per name each millisecond, with confirms and mandatory, until the declares
 * are answered (at most `maxBursts` bursts). Resolves, per name, the ids its publishers were
 * confirmed (an id is `<name>/<publisher>/<burst>`); a returned one (published before the queue
 * existed) may be among them: the caller leaves those out.
 */
import type { Channel, ChannelModel, ConfirmChannel, Message } from "amqplib";
import { withTimeout } from "../helpers/wait.js";

/** What both race tests start from: per node a connection and `names` declaring channels, a confirm publisher per node, and the ids returned to them. */
export interface DeclareRaceClients {
  readonly conns: readonly ChannelModel[];
  readonly declarers: readonly Channel[][];
  readonly pubs: readonly ConfirmChannel[];
  /** Ids of messages returned (mandatory, published before their queue existed): not counted. */
  readonly returned: ReadonlySet<string>;
}

/** Opens the two nodes' declaring channels (one per name) and confirm publishers (on connections of their own). */
export async function declareRaceClients(connect: (i: number) => Promise<ChannelModel>, names: number): Promise<DeclareRaceClients> {
  const conns = [await connect(0), await connect(1)];
  const declarers: Channel[][] = [];
  for (const c of conns) declarers.push(await Promise.all(Array.from({ length: names }, () => c.createChannel())));
  const pubs: ConfirmChannel[] = [await (await connect(0)).createConfirmChannel(), await (await connect(1)).createConfirmChannel()];
  const returned = new Set<string>();
  for (const p of pubs) p.on("return", (m: Message) => returned.add(m.content.toString()));
  return { conns, declarers, pubs, returned };
}

export async function declareRaceRound(round: number, names: readonly string[], pubs: readonly ConfirmChannel[], declare: () => Promise<unknown>, maxBursts: number, ms = 15_000): Promise<Map<string, string[]>> {
  let declared = false;
  const declares = declare().finally(() => (declared = true));
  const confirmed = new Map<string, string[]>(names.map((q) => [q, []]));
  const acks: Array<Promise<void>> = [];
  for (let seq = 0; seq < maxBursts && !declared; seq++) {
    for (const [i, p] of pubs.entries()) {
      for (const q of names) {
        const id = `${q}/${i}/${seq}`;
        acks.push(
          new Promise<void>((resolve) => {
            p.publish("", q, Buffer.from(id), { mandatory: true, persistent: true }, (err: unknown) => {
              if (err === null || err === undefined) confirmed.get(q)!.push(id);
              resolve();
            });
          }),
        );
      }
    }
    await new Promise((res) => setTimeout(res, 1));
  }
  await withTimeout(declares, ms, `round ${round}: the declares`);
  await withTimeout(Promise.all(acks), ms, `round ${round}: every publish confirmed or nacked`);
  return confirmed;
}

/** The claims the nodes' logs say were lost, and the held messages those copies moved to the winner. */
export function lostClaimsIn(log: string): { lostClaims: number; moved: number } {
  const lostClaims = log.split("declared on two nodes at once").length - 1;
  const moved = [...log.matchAll(/declared on two nodes at once[^\n]*"moved":(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  return { lostClaims, moved };
}
