/**
 * Per-user limits (RabbitMQ's user-limits): `max-connections` (checked at connection.open) and
 * `max-channels` (the user's channels over all its connections, checked at channel.open).
 * A negative value means no limit, as in RabbitMQ; 0 refuses every new one.
 */
import { BrokerError } from "../errors/broker-error.js";
import type { UserLimits } from "./user.js";

export const USER_LIMIT_KEYS = ["max-connections", "max-channels"] as const;
export type UserLimitKey = (typeof USER_LIMIT_KEYS)[number];

export function isUserLimitKey(name: string): name is UserLimitKey {
  return (USER_LIMIT_KEYS as readonly string[]).includes(name);
}

/** Validates one limit as RabbitMQ does (its texts), returning the limits with it set. */
export function withUserLimit(limits: UserLimits, name: string, value: unknown): UserLimits {
  if (!isUserLimitKey(name)) throw new BrokerError("badRequest", `Unrecognised terms [{<<"${name}">>,${JSON.stringify(value)}}] in user-limits`);
  if (typeof value !== "number" || !Number.isInteger(value)) throw new BrokerError("badRequest", `${name} should be a number, actually was ${JSON.stringify(value)}`);
  return { ...limits, [name]: value };
}

/** True when one more is allowed under `limit` (undefined or negative: no limit). */
export function underLimit(limit: number | undefined, current: number): boolean {
  return limit === undefined || limit < 0 || current < limit;
}
