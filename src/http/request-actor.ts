/**
 * Who makes a management API request, for the events and audit records of the changes it makes:
 * the logged-in user, Basic or OAuth 2.0 (a bearer token), the peer address, and whether the
 * client is coneyctl (it names itself in its User-Agent, src/cli/management-client.ts) or any
 * other HTTP client.
 */
import type { Actor } from "../broker/index.js";
import type { Request } from "./route-table.js";

/** coneyctl's User-Agent starts with this. */
export const CONEYCTL_AGENT = "coneyctl/";

export function actorOf(req: Pick<Request, "caller" | "raw">): Actor {
  const headers = req.raw.headers;
  const bearer = (headers.authorization ?? "").slice(0, 7).toLowerCase() === "bearer ";
  const agent = headers["user-agent"] ?? "";
  const socket = req.raw.socket;
  return {
    user: req.caller.user.name,
    authMethod: bearer ? "oauth" : "basic",
    source: agent.startsWith(CONEYCTL_AGENT) ? "cli" : "http",
    peer: `${socket.remoteAddress ?? ""}:${socket.remotePort ?? 0}`,
  };
}
