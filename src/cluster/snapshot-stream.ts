/**
 * A full sync's snapshot (docs/CLUSTERING.md, "Full sync"): taken synchronously at a batch
 * boundary by opening every store file and noting its size, then streamed in 1 MiB pieces. An
 * open descriptor keeps a segment readable even if the leader deletes it meanwhile; the delete
 * reaches the follower as a live frame after the snapshot.
 */
import { closeSync, existsSync, fstatSync, openSync, read } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { FrameType, f64, nameHead, sendFrame } from "./replication-frames.js";
import type { FollowerLink } from "./follower-link.js";
import { auditFileNames, nodeFileNames, replicatedFileNames, streamSideFileNames } from "./copy-manifest.js";

const CHUNK = 1024 * 1024;

export interface SnapshotFile {
  /** Relative to the data dir: "definitions.json", "messages/NNNNNNNN.seg|acks", "audit/…" or "streams/<id>/<n>.segment". */
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
  for (const name of nodeFileNames(dataDir)) add(name);
  // The audit trail's files and the streams' side files are sent whole, like definitions.json (the manifest does not name them).
  for (const name of auditFileNames(dataDir)) add(name);
  for (const name of streamSideFileNames(dataDir)) add(name);
  // Store files and stream segments: at a batch boundary every chunk placed so far is written.
  for (const name of replicatedFileNames(dataDir)) add(name);
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

/**
 * Streams the files (each from the bytes the follower keeps, link.kept), then SNAP_END and the
 * batch the snapshot ends with; resolves with the bytes sent and kept once all is handed to the
 * socket. Every file gets at least one frame, an empty one included: the follower removes the
 * store files the snapshot does not name.
 */
export async function streamSnapshot(link: FollowerLink, files: readonly SnapshotFile[], snapBatch: number): Promise<{ sent: number; kept: number }> {
  const socket = link.socket;
  let sent = 0;
  let kept = 0;
  try {
    for (const f of files) {
      // Files only grow while this node leads: what the follower keeps is never beyond the snapshot's size.
      const keep = link.kept.get(f.name) ?? 0;
      let pos = keep <= f.size ? keep : 0;
      kept += pos;
      do {
        const piece = await readAt(f.fd, Math.min(CHUNK, f.size - pos), pos);
        if (link.closed) return { sent, kept };
        sendFrame(socket, FrameType.SnapFile, nameHead(f.name, f64(pos)), [piece]);
        pos += piece.length;
        sent += piece.length;
        if (piece.length === 0) break;
        if (socket.writableLength > 8 * CHUNK) await Promise.race([once(socket, "drain"), once(socket, "close")]);
      } while (pos < f.size);
    }
    sendFrame(socket, FrameType.SnapEnd, null);
    const b = Buffer.allocUnsafe(9);
    b.writeDoubleLE(snapBatch, 0);
    b[8] = 1;
    sendFrame(socket, FrameType.Batch, b);
    return { sent, kept };
  } finally {
    closeSnapshot(files);
  }
}
