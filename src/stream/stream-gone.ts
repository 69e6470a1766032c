/**
 * Telling a stream client that a stream it uses is gone (deleted, its leader lost or moved):
 * MetadataUpdate stream_not_available, once per stream and loss, as RabbitMQ's reader tells a
 * connection once whatever number of its publishers and subscriptions used the stream. A loss
 * reaches a connection by several paths (the stream's deletion applied here, each remote read's
 * end, each remote publisher's refusal), so the connection remembers which streams it was told
 * about (`goneTold`) until it uses that stream again (a new publisher or subscription on it).
 */
import { CMD, RC } from "./protocol.js";
import { FrameWriter } from "./wire.js";

export interface GoneTeller {
  readonly closed: boolean;
  /** The streams this connection was told are gone and has not used since. */
  readonly goneTold: Set<string>;
  send(frame: Buffer): boolean;
}

/**
 * Sends MetadataUpdate stream_not_available for `name` unless the connection was told already;
 * after `after` settles when given (a deletion: once every node applied it, so the client's next
 * Metadata, on any node, no longer finds the stream).
 */
export function tellStreamGone(c: GoneTeller, name: string, after: Promise<void> | null = null): void {
  if (c.closed || c.goneTold.has(name)) return;
  c.goneTold.add(name);
  const send = (): void => {
    if (!c.closed) c.send(new FrameWriter(CMD.metadataUpdate, 1, 64).u16(RC.streamNotAvailable).str(name).frame());
  };
  if (after === null) send();
  else after.then(send, send);
}

/** The connection uses `name` again (a publisher declared or a subscription made on it): its next loss is told. */
export function usingStream(c: GoneTeller, name: string): void {
  if (c.goneTold.size > 0) c.goneTold.delete(name);
}
