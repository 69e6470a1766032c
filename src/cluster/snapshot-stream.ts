/**
 * A full sync's snapshot (docs/CLUSTERING.md, "Full sync"): taken synchronously at a batch
 * boundary by opening every store file and noting its size, then streamed in 1 MiB pieces. An
 * open descriptor keeps a segment readable even if the leader deletes it meanwhile; the delete
 * reaches the follower as a live frame after the snapshot.
 */
import { closeSync, existsSync, fstatSync, openSync, read, readdirSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { FrameType, f64, nameHead, sendFrame } from "./replication-frames.js";
import type { FollowerLink } from "./follower-link.js";

const CHUNK = 1024 * 1024;
const STORE_FILE = /^\d{8}\.(seg|acks)$/;

export interface SnapshotFile {
  /** Relative to the data dir: "definitions.json" or "messages/NNNNNNNN.seg|acks". */
  readonly name: string;
  readonly fd: number;
  readonly size: number;
}

/** Opens the data dir's store files as they are now (call only at a batch boundary). */
export function takeSnapshot(dataDir: string): SnapshotFile[] {
  const files: SnapshotFile[] = [];
  const add = (name: string): void => {
    const fd = openSync(join(dataDir, name), "r");
    files.push({ name, fd, size: fstatSync(fd).size });
  };
  if (existsSync(join(dataDir, DEFINITIONS_FILE))) add(DEFINITIONS_FILE);
  const messages = join(dataDir, "messages");
  if (existsSync(messages)) for (const f of readdirSync(messages).sort()) if (STORE_FILE.test(f)) add(`messages/${f}`);
  return files;
}

export function closeSnapshot(files: readonly SnapshotFile[]): void {
  for (const f of files) closeSync(f.fd);
}

function readAt(fd: number, length: number, position: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const buf = Buffer.allocUnsafe(length);
    read(fd, buf, 0, length, position, (err, n) => (err ? reject(err) : resolve(buf.subarray(0, n))));
  });
}

/** Streams the files, then SNAP_END and the batch the snapshot ends with; resolves when all is handed to the socket. */
export async function streamSnapshot(link: FollowerLink, files: readonly SnapshotFile[], snapBatch: number): Promise<void> {
  const socket = link.socket;
  try {
    for (const f of files) {
      // An empty file is sent too: the follower must create it.
      let pos = 0;
      do {
        const piece = await readAt(f.fd, Math.min(CHUNK, f.size - pos), pos);
        if (link.closed) return;
        sendFrame(socket, FrameType.SnapFile, nameHead(f.name, f64(pos)), [piece]);
        pos += piece.length;
        if (piece.length === 0) break;
        if (socket.writableLength > 8 * CHUNK) await Promise.race([once(socket, "drain"), once(socket, "close")]);
      } while (pos < f.size);
    }
    sendFrame(socket, FrameType.SnapEnd, null);
    const b = Buffer.allocUnsafe(9);
    b.writeDoubleLE(snapBatch, 0);
    b[8] = 1;
    sendFrame(socket, FrameType.Batch, b);
  } finally {
    closeSnapshot(files);
  }
}
