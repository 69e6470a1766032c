/**
 * Which etcd answers on a loopback port (coney-perf's local cluster, the cluster tests' fixture).
 * A client port picked free a moment before etcd binds it may be taken meanwhile by another
 * process's etcd: the new etcd then exits ("address already in use") while the other one answers
 * `/health` — and a cluster started on that URL joins the other process's etcd (the same key
 * prefix when both name their cluster alike), and a SIGSTOP meant for its etcd stops nothing.
 * So each etcd started here gets a member name of its own, and "started" means that name answers.
 */
import { randomUUID } from "node:crypto";

/** A member name no other etcd on this machine has (kept across restarts of the same etcd: its data dir records it). */
export function uniqueEtcdName(): string {
  return `coney-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** Whether the etcd answering at `url` is the one-member cluster whose member is `name` (its v3 JSON gateway). */
export async function etcdAnswersAs(url: string, name: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/v3/cluster/member/list`, { method: "POST", body: "{}", signal: AbortSignal.timeout(2000) });
    if (!r.ok) return false;
    const body = (await r.json()) as { members?: Array<{ name?: string }> };
    return (body.members ?? []).some((m) => m.name === name);
  } catch {
    return false;
  }
}

/** etcd's own words when its client or peer port was taken before it bound it. */
export function lostItsPort(stderr: string): boolean {
  return stderr.includes("address already in use");
}
