/**
 * The domain's public face: everything code outside src/broker may use of it (the rule is in
 * .dependency-cruiser.cjs). Transports, the API, metrics, the store and the cluster import from
 * here; what is not listed is the domain's own business. Value types are in ./values/.
 */
export { type Blockable, ResourceAlarms } from "./alarms/resource-alarms.js";
export { type Binding } from "./binding.js";
export { type BootstrapOptions, bootstrapDefaults } from "./bootstrap.js";
export { type BrokerStats, MESSAGE_SIZE_BOUNDS, type ProtocolCounters } from "./broker-stats.js";
export { Broker, PUBLISH_REFUSED, PUBLISH_ROUTED, PUBLISH_STORED, PUBLISH_UNROUTED } from "./broker.js";
export { canonicalJson } from "./canonical-json.js";
export { type ClientContext, clientContext } from "./client-context.js";
export { type ClusterMember, type ClusterView, type ForgetOutcome } from "./cluster-view.js";
export { emptyChannelCounters, type ChannelCounters, type ChannelInfo, type ClientConnection, type ConnectionInfo, type ConsumerInfo, type StreamConsumerInfo, type StreamPublisherInfo, type TlsSessionInfo } from "./connection-registry.js";
export { type DeathReason } from "./dead-letter.js";
export { bindingDefinition, exchangeDefinition, queueDefinition } from "./definition-records.js";
export { type DefinitionsSink } from "./definitions-sink.js";
export { type Definitions, exportDefinitions, importDefinitions } from "./definitions.js";
export { MirrorOutbox } from "./mirror-outbox.js";
export { applyMirroredChange } from "./topology-apply.js";
export { type MirroredChange, type MirroredRecord, type TopologyMirror } from "./topology-mirror.js";
export { followSnapshot, heldIdentities, identityOf, topologySnapshot } from "./topology-snapshot.js";
export { DirectReplyRegistry, REPLY_TO_QUEUE, replyNodeTag, type ReplyForwarder, type ReplyTarget } from "./direct-reply.js";
export { type Actor, type ActorSource, type AuthMethod, SYSTEM_ACTOR } from "./events/actor.js";
export { type ConfigChange, type DomainEvent } from "./events/domain-event.js";
export { EVENT_EXCHANGE, EventExchange } from "./events/event-exchange.js";
export { EXCHANGE_TYPES } from "./exchange/exchange-types.js";
export type { FeatureFlag } from "./feature-flags.js";
export { type Exchange, type ExchangeBinding, type ExchangeSpec } from "./exchange/exchange.js";
export { createMessage, type Message, type OriginalEncoding } from "./message.js";
export { withHeader } from "./message-headers.js";
export { filterValueOf, filterWants, type ChunkCursor, type EncodedMessageDecoder, type EncodedSubBatch, type StreamChunk, type StreamFilter, type StreamLog, type StreamReader, type StreamRecord, type StreamRetention } from "./streams/stream-log.js";
export { StreamQueue, type StreamStart, type StreamWatcher } from "./streams/stream-queue.js";
export { RemoteStreamQueue } from "./streams/remote-stream-queue.js";
export { type StreamFigures, type StreamQuery } from "./streams/stream-queries.js";
export { answerStreamQuery } from "./streams/stream-query-answers.js";
export { checkNameLength, generateConsumerTag } from "./names.js";
export { checkConsumerArguments } from "./queue/queue-type-rules.js";
export { type ParameterComponent, ParameterComponents, validationFailed } from "./parameter-components.js";
export { type AppliedPolicy, NO_POLICY } from "./policies.js";
export { PRODUCT, VERSION } from "./product.js";
export { checkExpiration } from "./queue/message-expiry.js";
export { FLOW_HIGH, FLOW_HIGH_BYTES, type FlowHost, PublishFlow } from "./queue/publish-flow.js";
export { type QueueConsumer } from "./queue/queue-consumer.js";
export { type QueueEntry } from "./queue/queue-entry.js";
export { type LostRecordsHandler, type PageSink, type QueueJournal, type QueueLog, type ReadyFill, type SyncWaiter } from "./queue/queue-journal.js";
export { type Queue, type QueueHost, type ConsumerTerms } from "./queue/queue-type.js";
export { holdForEntries } from "./operations/body-holds.js";
export { type QueueSpec } from "./queue/queue-spec.js";
export { type QueuePlacement } from "./queue/queue-placement.js";
export { OwnerElsewhere, ownerNodeElsewhere } from "./queue/owner-elsewhere.js";
export { chooseLeaderNode, LEADER_LOCATOR_VALUES, leaderLocatorOf, queueGroupOf, type LeaderLocator } from "./queue/placement.js";
export { effectivePolicy } from "./policies.js";
export { MAX_QUEUE_GROUPS, groupLabel } from "./queue/queue-groups.js";
export { type QueueLeaderPort, type RemoteConsumeTerms, type RemoteConsumerSink, type RemoteGot, type RemoteQueueInfo, type SettleOp, SETTLE_ACK, SETTLE_DISCARD, SETTLE_REQUEUE } from "./queue/queue-leader-port.js";
export { countsFromLeader, deleteQueueAsync, deleteQueueOnLeader, getAsync, getFromLeader, type LeaderGet, purgeQueueAsync, purgeQueueOnLeader } from "./operations/remote-queue-operations.js";
export { handQueueOver, leaderPortOf, leadQueueHere } from "./operations/queue-handover.js";
export { CLUSTER_NAME_PARAMETER, clusterNameOf, VHOST_LIMITS_COMPONENT, VHOST_LIMITS_NAME } from "./runtime-parameters.js";
export { type PolicyRecord, type VHost, type VHostStats } from "./vhost.js";
