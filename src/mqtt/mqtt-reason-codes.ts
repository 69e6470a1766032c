/**
 * The MQTT reason codes Coney sends (MQTT 5 §2.4) and, for CONNACK, the MQTT 3.1.1 return code
 * each one becomes (RabbitMQ's connect_reason_code_to_return_code).
 */
export const RC = {
  success: 0x00,
  noMatchingSubscribers: 0x10,
  noSubscriptionExisted: 0x11,
  unspecifiedError: 0x80,
  malformedPacket: 0x81,
  protocolError: 0x82,
  implementationSpecificError: 0x83,
  unsupportedProtocolVersion: 0x84,
  clientIdentifierNotValid: 0x85,
  badUserNameOrPassword: 0x86,
  notAuthorized: 0x87,
  serverUnavailable: 0x88,
  serverShuttingDown: 0x8b,
  badAuthenticationMethod: 0x8c,
  keepAliveTimeout: 0x8d,
  sessionTakenOver: 0x8e,
  topicFilterInvalid: 0x8f,
  topicNameInvalid: 0x90,
  packetIdentifierNotFound: 0x92,
  receiveMaximumExceeded: 0x93,
  topicAliasInvalid: 0x94,
  packetTooLarge: 0x95,
  quotaExceeded: 0x97,
  administrativeAction: 0x98,
  qosNotSupported: 0x9b,
  sharedSubscriptionsNotSupported: 0x9e,
  subscriptionIdentifiersNotSupported: 0xa1,
  maximumConnectTime: 0xa0,
} as const;

/** MQTT 3.1.1 CONNACK return codes (§3.2.2.3). */
const V3_CONNACK: ReadonlyMap<number, number> = new Map([
  [RC.success, 0],
  [RC.unsupportedProtocolVersion, 1],
  [RC.clientIdentifierNotValid, 2],
  [RC.badUserNameOrPassword, 4],
  [RC.notAuthorized, 5],
  [RC.quotaExceeded, 5],
]);

/** The 3.1.1 return code for a CONNACK reason code; anything unlisted is "server unavailable". */
export function connackReturnCode(reasonCode: number): number {
  return V3_CONNACK.get(reasonCode) ?? 3;
}
