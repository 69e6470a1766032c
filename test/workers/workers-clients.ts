/**
 * Clients of a `coney --workers N` process that the group tests share: an amqplib connection that
 * survives its worker's death, and where each queue leads.
 */
import amqp, { type ChannelModel } from "amqplib";
import type { WorkersProcess } from "./workers-harness.js";

/** A connection to any worker, kept in `open` for the file's clean-up. */
export async function connectSurviving(p: WorkersProcess, open: ChannelModel[]): Promise<ChannelModel> {
  const c = await amqp.connect(p.amqpUrl);
  // The broker side may die (the killed worker): without a listener amqplib's throw skips its clean-up.
  c.on("error", () => {});
  open.push(c);
  return c;
}

/** Each queue of vhost "/" with the node that leads it, as `/api/queues` says now. */
export async function queueNodes(p: WorkersProcess): Promise<Map<string, string | undefined>> {
  const list = (await p.api("GET", "/api/queues/%2F?columns=name,node")).json as ReadonlyArray<{ readonly name: string; readonly node?: string }>;
  return new Map(list.map((q) => [q.name, q.node]));
}
