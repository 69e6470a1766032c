/** AMQP tx methods through amqplib's generic Channel.rpc (its promise API has no tx helpers; class 90). */
export async function txRpc(ch: object, method: "txSelect" | "txCommit" | "txRollback"): Promise<void> {
  const ids = { txSelect: [0x5a000a, 0x5a000b], txCommit: [0x5a0014, 0x5a0015], txRollback: [0x5a001e, 0x5a001f] } as const;
  const [id, okId] = ids[method];
  await (ch as { rpc: (id: number, fields: object, expect: number) => Promise<unknown> }).rpc(id, {}, okId);
}
