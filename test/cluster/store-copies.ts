/** A node's store files and stream segments as bytes, and a wait until two nodes hold the same ones (catch-up tests). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NodeInfo } from "./cluster-fixture.js";
import { replicatedFileNames } from "../../src/cluster/copy-manifest.js";
import { eventually } from "../helpers/wait.js";

/**
 * The node's replicated files and their bytes. A file listed and then gone before it is read (a
 * segment retention deleted meanwhile) is left out: the next poll sees the node as it is then.
 */
export function copyOf(n: NodeInfo): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const f of replicatedFileNames(n.dataDir)) {
    try {
      files.set(f, readFileSync(join(n.dataDir, f)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return files;
}

/** Quiet cluster: once in sync, both copies are the same bytes (polled: the last batch may still be landing). */
export async function sameCopies(a: NodeInfo, b: NodeInfo): Promise<void> {
  let diff = "";
  await eventually(async () => {
    const [x, y] = [copyOf(a), copyOf(b)];
    diff = [...new Set([...x.keys(), ...y.keys()])].filter((f) => !x.get(f)?.equals(y.get(f) ?? Buffer.alloc(0)) || !y.has(f)).join(", ");
    return diff === "";
  }, 15_000, `${a.name} and ${b.name} to hold the same files (differ: ${diff})`);
}
