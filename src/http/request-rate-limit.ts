/**
 * The management API's request-rate limit (the spec names one; RabbitMQ has none), on
 * @fastify/rate-limit: `perMinute` requests per minute per user (the user named by the Basic
 * credentials or the token's subject) and per client address for requests without credentials.
 * It runs before authentication, so a flood costs no password hashing. Beyond it: 429 with
 * Retry-After and RabbitMQ's {error, reason} body.
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { decodeJwt } from "jose";

/** Who a request claims to be; unverified, used only to count requests. */
export function rateLimitKey(req: FastifyRequest): string {
  const header = req.headers.authorization ?? "";
  const space = header.indexOf(" ");
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) return `user:${decoded.slice(0, colon)}`;
  } else if (scheme === "bearer") {
    try {
      const sub = decodeJwt(value).sub;
      if (typeof sub === "string") return `user:${sub}`;
    } catch {
      // not a JWT: counted by address
    }
  }
  return `address:${req.ip}`;
}

export async function registerRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: rateLimitKey,
    addHeaders: { "x-ratelimit-limit": false, "x-ratelimit-remaining": false, "x-ratelimit-reset": false, "retry-after": true },
    errorResponseBuilder: (_req, context) => ({
      statusCode: 429,
      error: "too_many_requests",
      reason: `Rate limit exceeded: ${context.max} requests per minute; retry in ${context.after}`,
    }),
  });
}
