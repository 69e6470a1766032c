/**
 * The management API's request-rate limit (the spec names one; RabbitMQ has none), on
 * @fastify/rate-limit: `perMinute` requests per minute per authenticated user, and per client
 * address for requests that carry no credentials or whose login fails, so nobody can spend
 * another user's allowance by claiming their name. The login is the request's own
 * (RequestLogins: done once, shared with the route), and failed logins are throttled per address
 * on top (LoginThrottle). Beyond the limit: 429 with Retry-After and RabbitMQ's {error, reason} body.
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RequestLogins } from "./http-auth.js";

/** Whom a request counts against: its authenticated user, else its address. */
export async function rateLimitKey(req: FastifyRequest, logins: RequestLogins): Promise<string> {
  if (req.headers.authorization !== undefined) {
    try {
      return `user:${(await logins.callerOf(req)).user.name}`;
    } catch {
      // a failed login counts against the address it came from
    }
  }
  return `address:${req.ip}`;
}

export async function registerRateLimit(app: FastifyInstance, perMinute: number, logins: RequestLogins): Promise<void> {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => rateLimitKey(req, logins),
    addHeaders: { "x-ratelimit-limit": false, "x-ratelimit-remaining": false, "x-ratelimit-reset": false, "retry-after": true },
    errorResponseBuilder: (_req, context) => ({
      statusCode: 429,
      error: "too_many_requests",
      reason: `Rate limit exceeded: ${context.max} requests per minute; retry in ${context.after}`,
    }),
  });
}
