/** Every coneyctl command, in one list the parser and `help` read. */
import type { CommandSpec } from "../command-spec.js";
import { AUDIT_COMMANDS } from "./audit.js";
import { CONNECTION_COMMANDS } from "./connections.js";
import { DEFINITION_COMMANDS } from "./definitions.js";
import { EXCHANGE_COMMANDS } from "./exchanges.js";
import { FEDERATION_COMMANDS } from "./federation.js";
import { helpCommand } from "./help.js";
import { NODE_COMMANDS } from "./node.js";
import { PERMISSION_COMMANDS } from "./permissions.js";
import { TOPIC_PERMISSION_COMMANDS } from "./topic-permissions.js";
import { POLICY_COMMANDS } from "./policies.js";
import { QUEUE_COMMANDS } from "./queues.js";
import { REBALANCE_COMMANDS } from "./rebalance.js";
import { STREAM_LIST_COMMANDS } from "./stream-lists.js";
import { SHOVEL_COMMANDS } from "./shovels.js";
import { USER_COMMANDS } from "./users.js";
import { VHOST_COMMANDS } from "./vhosts.js";

export const ALL_COMMANDS: readonly CommandSpec[] = [
  helpCommand(() => ALL_COMMANDS),
  ...PERMISSION_COMMANDS,
  ...TOPIC_PERMISSION_COMMANDS,
  ...USER_COMMANDS,
  ...VHOST_COMMANDS,
  ...QUEUE_COMMANDS,
  ...REBALANCE_COMMANDS,
  ...EXCHANGE_COMMANDS,
  ...CONNECTION_COMMANDS,
  ...STREAM_LIST_COMMANDS,
  ...POLICY_COMMANDS,
  ...DEFINITION_COMMANDS,
  ...NODE_COMMANDS,
  ...AUDIT_COMMANDS,
  ...FEDERATION_COMMANDS,
  ...SHOVEL_COMMANDS,
];
