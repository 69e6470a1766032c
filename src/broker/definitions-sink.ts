/**
 * Where the broker reports durable definition changes (users, vhosts, permissions, policies,
 * parameters, durable exchanges and queues, bindings). The persistence layer implements it;
 * an in-memory broker uses NO_PERSISTENCE. Values are RabbitMQ definitions-format records.
 */
export type DefinitionKind =
  | "users"
  | "vhosts"
  | "permissions"
  | "topic_permissions"
  | "policies"
  | "operator_policies"
  | "parameters"
  | "global_parameters"
  | "exchanges"
  | "queues"
  | "bindings";

export interface DefinitionsSink {
  put(kind: DefinitionKind, key: string, value: unknown): void;
  delete(kind: DefinitionKind, key: string): void;
}

export const NO_PERSISTENCE: DefinitionsSink = { put() {}, delete() {} };
