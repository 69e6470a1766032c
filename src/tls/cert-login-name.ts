/**
 * The user name a verified client certificate logs in as (RabbitMQ's ssl_cert_login_from):
 * `distinguished_name`, the subject as RFC 4514 writes it, most specific first ("CN=client,O=Example");
 * or `common_name`, its CN. Null when the socket is not TLS, the client sent no certificate, or the
 * certificate was not verified against the CA.
 */
import { TLSSocket, type PeerCertificate } from "node:tls";

export type CertLoginFrom = "distinguished_name" | "common_name";

export function certLoginName(socket: unknown, from: CertLoginFrom): string | null {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return null;
  const cert: PeerCertificate | Record<string, never> = socket.getPeerCertificate();
  if (!("subject" in cert) || cert.subject === undefined) return null;
  const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
  if (from === "common_name") {
    const cn = subject["CN"];
    return (Array.isArray(cn) ? cn[0] : cn) ?? null;
  }
  // Node lists the subject in certificate order (C first); RFC 4514 writes it the other way round.
  const parts = Object.entries(subject).flatMap(([k, v]) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => `${k}=${x}`));
  return parts.reverse().join(",");
}
