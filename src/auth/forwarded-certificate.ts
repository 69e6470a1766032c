/**
 * A certificate login a cluster node vouches for (docs/STREAMS.md, "Followers serve the stream
 * port"). A follower terminates its clients' TLS and forwards their stream protocol to the
 * leader's plain port, so the leader never sees a client's certificate; when such a client logs
 * in with SASL EXTERNAL, the follower sends the leader this mechanism instead, naming the user its
 * verified certificate names and whether the client came from loopback, with an HMAC of both
 * under the cluster's secret (the replication secret, replication-auth.ts). The leader accepts it
 * only with a proof that matches, and then applies EXTERNAL's own rules (the user must exist).
 *
 * The proof holds no nonce, so a new leader after a failover accepts the same login again when
 * the follower replays the client's handshake; someone who can read the traffic between cluster
 * nodes could replay it too, but the same connections carry PLAIN passwords in clear (the stream
 * forwarding is not encrypted, as replication without --cluster-tls), so this gives nothing more.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Never offered to clients: only a node of the cluster can produce its proof. */
export const FORWARDED_EXTERNAL = "X-CONEY-FORWARDED-EXTERNAL";

export interface ForwardedCertificate {
  readonly user: string;
  readonly loopback: boolean;
}

function proof(secret: Buffer, user: string, loopback: boolean): string {
  return createHmac("sha256", secret).update("stream-forwarded-external\0").update(loopback ? "1" : "0").update("\0").update(user, "utf8").digest("hex");
}

/** The SaslAuthenticate data a follower sends for a client whose verified certificate names `user`. */
export function vouchForCertificate(secret: Buffer, user: string, loopback: boolean): Buffer {
  return Buffer.from(`${loopback ? "1" : "0"}\0${user}\0${proof(secret, user, loopback)}`, "utf8");
}

/** The login `data` vouches for, or null when its proof does not match `secret` (or it is malformed). */
export function vouchedCertificate(secret: Buffer, data: Buffer | null): ForwardedCertificate | null {
  if (data === null || secret.length === 0) return null;
  const parts = data.toString("utf8").split("\0");
  if (parts.length !== 3 || (parts[0] !== "0" && parts[0] !== "1")) return null;
  const loopback = parts[0] === "1";
  const user = parts[1]!;
  const expected = Buffer.from(proof(secret, user, loopback), "utf8");
  const got = Buffer.from(parts[2]!, "utf8");
  return got.length === expected.length && timingSafeEqual(got, expected) ? { user, loopback } : null;
}
