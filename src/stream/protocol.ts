/**
 * RabbitMQ's stream protocol vocabulary (deps/rabbitmq_stream/docs/PROTOCOL.adoc): command keys,
 * response codes, offset specification types, and the command versions this server speaks,
 * which ExchangeCommandVersions announces.
 */

export const CMD = {
  declarePublisher: 0x01,
  publish: 0x02,
  publishConfirm: 0x03,
  publishError: 0x04,
  queryPublisherSequence: 0x05,
  deletePublisher: 0x06,
  subscribe: 0x07,
  deliver: 0x08,
  credit: 0x09,
  storeOffset: 0x0a,
  queryOffset: 0x0b,
  unsubscribe: 0x0c,
  create: 0x0d,
  delete: 0x0e,
  metadata: 0x0f,
  metadataUpdate: 0x10,
  peerProperties: 0x11,
  saslHandshake: 0x12,
  saslAuthenticate: 0x13,
  tune: 0x14,
  open: 0x15,
  close: 0x16,
  heartbeat: 0x17,
  route: 0x18,
  partitions: 0x19,
  consumerUpdate: 0x1a,
  exchangeCommandVersions: 0x1b,
  streamStats: 0x1c,
  createSuperStream: 0x1d,
  deleteSuperStream: 0x1e,
} as const;

/** A response's key: the request's with the top bit set. */
export const RESPONSE = 0x8000;

export const RC = {
  ok: 0x01,
  streamDoesNotExist: 0x02,
  subscriptionIdAlreadyExists: 0x03,
  subscriptionIdDoesNotExist: 0x04,
  streamAlreadyExists: 0x05,
  streamNotAvailable: 0x06,
  saslMechanismNotSupported: 0x07,
  authenticationFailure: 0x08,
  saslError: 0x09,
  saslChallenge: 0x0a,
  saslAuthenticationFailureLoopback: 0x0b,
  virtualHostAccessFailure: 0x0c,
  unknownFrame: 0x0d,
  frameTooLarge: 0x0e,
  internalError: 0x0f,
  accessRefused: 0x10,
  preconditionFailed: 0x11,
  publisherDoesNotExist: 0x12,
  noOffset: 0x13,
} as const;

export const OFFSET_TYPE = { first: 1, last: 2, next: 3, offset: 4, timestamp: 5 } as const;

/** [key, min version, max version] of every command this server handles or sends. */
export const SERVER_VERSIONS: readonly (readonly [number, number, number])[] = [
  [CMD.declarePublisher, 1, 1],
  [CMD.publish, 1, 2],
  [CMD.publishConfirm, 1, 1],
  [CMD.publishError, 1, 1],
  [CMD.queryPublisherSequence, 1, 1],
  [CMD.deletePublisher, 1, 1],
  [CMD.subscribe, 1, 1],
  [CMD.deliver, 1, 2],
  [CMD.credit, 1, 1],
  [CMD.storeOffset, 1, 1],
  [CMD.queryOffset, 1, 1],
  [CMD.unsubscribe, 1, 1],
  [CMD.create, 1, 1],
  [CMD.delete, 1, 1],
  [CMD.metadata, 1, 1],
  [CMD.metadataUpdate, 1, 1],
  [CMD.peerProperties, 1, 1],
  [CMD.saslHandshake, 1, 1],
  [CMD.saslAuthenticate, 1, 1],
  [CMD.tune, 1, 1],
  [CMD.open, 1, 1],
  [CMD.close, 1, 1],
  [CMD.heartbeat, 1, 1],
  [CMD.exchangeCommandVersions, 1, 1],
  [CMD.streamStats, 1, 1],
  [CMD.route, 1, 1],
  [CMD.partitions, 1, 1],
  [CMD.createSuperStream, 1, 1],
  [CMD.deleteSuperStream, 1, 1],
];

/** Frames before Open may be at most this big (RabbitMQ's stream.initial_frame_max). */
export const INITIAL_FRAME_MAX = 8192;
/** The frame max the server proposes in Tune (RabbitMQ's default 1 MiB). */
export const DEFAULT_FRAME_MAX = 1_048_576;
/** The heartbeat the server proposes in Tune, in seconds (RabbitMQ's default). */
export const DEFAULT_HEARTBEAT = 60;
