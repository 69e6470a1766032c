/**
 * What a TLS connection negotiated, in the terms of RabbitMQ's connection record (ssl_protocol,
 * ssl_key_exchange, ssl_cipher, ssl_hash, peer_cert_*), read from Node's TLSSocket when a record
 * is served. The names are OpenSSL's (RabbitMQ shows Erlang's): e.g. protocol "tlsv1.3", cipher
 * "TLS_AES_256_GCM_SHA384", key exchange "ECDHE_RSA" (or "any" for TLS 1.3), hash "SHA384".
 */
import { TLSSocket, type PeerCertificate } from "node:tls";
import type { TlsSessionInfo } from "../broker/index.js";

/** "CN=client,O=Example": a certificate name as RabbitMQ writes one. */
function distinguishedName(name: Record<string, string | string[] | undefined>): string {
  return Object.entries(name)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => `${k}=${x}`))
    .join(",");
}

/**
 * The suite's key exchange: "ECDHE_RSA" from TLS_ECDHE_RSA_WITH_…; a TLS 1.3 suite does not fix
 * one ("any", as RabbitMQ reports it). The group negotiated is known only on the client side.
 */
function keyExchange(suite: string, eph: ReturnType<TLSSocket["getEphemeralKeyInfo"]>): string {
  if (eph && "type" in eph && eph.type) return [eph.type, "name" in eph ? eph.name : undefined].filter(Boolean).join(" ");
  return /^TLS_(.+)_WITH_/.exec(suite)?.[1] ?? "any";
}

export function tlsSessionInfo(socket: unknown): TlsSessionInfo | null {
  if (!(socket instanceof TLSSocket)) return null;
  const cipher = socket.getCipher();
  const eph = socket.getEphemeralKeyInfo();
  const name = cipher?.standardName ?? cipher?.name ?? "";
  const cert: PeerCertificate | Record<string, never> = socket.getPeerCertificate();
  const has = "subject" in cert && cert.subject !== undefined;
  return {
    protocol: (socket.getProtocol() ?? "").toLowerCase(),
    keyExchange: keyExchange(name, eph),
    cipher: name,
    // The MAC (or, for AEAD suites, the PRF hash) is the suite's last component.
    hash: /_(SHA\d*|MD5)$/.exec(name)?.[1] ?? "",
    peerCertIssuer: has ? distinguishedName((cert as PeerCertificate).issuer as unknown as Record<string, string>) : "",
    peerCertSubject: has ? distinguishedName((cert as PeerCertificate).subject as unknown as Record<string, string>) : "",
    peerCertValidity: has ? `${new Date((cert as PeerCertificate).valid_from).toISOString()} - ${new Date((cert as PeerCertificate).valid_to).toISOString()}` : "",
  };
}
