/**
 * RabbitMQ's recurring reasons, one constructor each, so a text that tools and clients match on
 * (the management API's "Not Found", "vhost_not_found", the 401 body "Login failed") is written
 * once. A reason raised in one place stays beside the rule that raises it; one that recurs
 * belongs here (test/errors/reasons.test.ts finds a recurring literal written out again).
 */
import { BrokerError } from "./broker-error.js";

/** RabbitMQ 3.10's body for credentials that do not log in (whatever the cause). */
export const LOGIN_FAILED = "Login failed";

export const loginFailed = (): BrokerError => new BrokerError("notAuthorized", LOGIN_FAILED);
/** A management path that names nothing: RabbitMQ's exact 404 body. */
export const objectNotFound = (): BrokerError => new BrokerError("objectNotFound", "Not Found");
export const vhostNotFound = (): BrokerError => new BrokerError("notFound", "vhost_not_found");
export const vhostOrUserNotFound = (): BrokerError => new BrokerError("badRequest", "vhost_or_user_not_found");
export const notAuthorisedForObject = (): BrokerError => new BrokerError("forbidden", "User not authorised to access object");
export const notAuthorisedForVhost = (): BrokerError => new BrokerError("forbidden", "User not authorised to access virtual host");
export const notManagementUser = (): BrokerError => new BrokerError("forbidden", "Not management user");
export const notAdministrator = (): BrokerError => new BrokerError("forbidden", "Not administrator user");
export const notMonitor = (): BrokerError => new BrokerError("forbidden", "Not monitor user");
