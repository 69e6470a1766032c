/**
 * The commands of an open stream connection, by key, to their handlers. Returns false for a key
 * this server does not know (the connection answers with RabbitMQ's UNKNOWN_FRAME close).
 */
import { CMD, RESPONSE } from "./protocol.js";
import { create, exchangeCommandVersions, metadata, queryOffset, remove, storeOffset, streamArguments, streamStats } from "./stream-admin.js";
import { createSuperStream, deleteSuperStream, partitions, route } from "./stream-super.js";
import type { StreamContext } from "./stream-context.js";
import { declarePublisher, deletePublisher, publish, queryPublisherSequence } from "./stream-publishers.js";
import { credit, subscribe, unsubscribe } from "./stream-subscriptions.js";
import type { FrameCursor } from "./wire.js";

export interface CommandHost extends StreamContext {
  /** A client answered a ConsumerUpdate. */
  consumerUpdateAnswered(corr: number, body: FrameCursor | null): void;
  /** Host and port told in Metadata. */
  advertised(): { host: string; port: number; tls: boolean };
}

export function handleCommand(c: CommandHost, key: number, version: number, body: FrameCursor): boolean {
  switch (key) {
    case CMD.publish:
      publish(c, version, body);
      return true;
    case CMD.credit:
      credit(c, body);
      return true;
    case CMD.declarePublisher:
      declarePublisher(c, body);
      return true;
    case CMD.deletePublisher:
      deletePublisher(c, body);
      return true;
    case CMD.queryPublisherSequence:
      queryPublisherSequence(c, body);
      return true;
    case CMD.subscribe:
      subscribe(c, body);
      return true;
    case CMD.unsubscribe:
      unsubscribe(c, body);
      return true;
    case CMD.storeOffset:
      storeOffset(c, body);
      return true;
    case CMD.queryOffset:
      queryOffset(c, body);
      return true;
    case CMD.create:
      create(c, body);
      return true;
    case CMD.delete:
      remove(c, body);
      return true;
    case CMD.metadata:
      metadata(c, body, c.advertised());
      return true;
    case CMD.streamStats:
      streamStats(c, body);
      return true;
    case CMD.exchangeCommandVersions:
      exchangeCommandVersions(c, body);
      return true;
    case CMD.route:
      route(c, body);
      return true;
    case CMD.partitions:
      partitions(c, body);
      return true;
    case CMD.createSuperStream:
      createSuperStream(c, body, streamArguments);
      return true;
    case CMD.deleteSuperStream:
      deleteSuperStream(c, body);
      return true;
    case CMD.consumerUpdate | RESPONSE:
      c.consumerUpdateAnswered(body.u32(), body);
      return true;
    default:
      return false;
  }
}
