/** A node's store files and stream segments as bytes, and a wait until two nodes hold the same ones (catch-up tests). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NodeInfo } from "./cluster-fixture.js";
import { replicatedFileNames } from "../../src/cluster/copy-manifest.js";
import { eventually } from "../helpers/wait.js";

export const copyOf = (n: NodeInfo): Map<string, Buffer> => new Map(replicatedFileNames(n.dataDir).map((f) => [f, readFileSync(join(n.dataDir, f))]));

/** Quiet cluster: once in sync, both copies are the same bytes (polled: the last batch may still be landing). */
export async function sameCopies(a: NodeInfo, b: NodeInfo): Promise<void> {
  let diff = "";
  await eventually(async () => {
    const [x, y] = [copyOf(a), copyOf(b)];
    diff = [...new Set([...x.keys(), ...y.keys()])].filter((f) => !x.get(f)?.equals(y.get(f) ?? Buffer.alloc(0)) || !y.has(f)).join(", ");
    return diff === "";
  }, 15_000, `${a.name} and ${b.name} to hold the same files (differ: ${diff})`);
}
