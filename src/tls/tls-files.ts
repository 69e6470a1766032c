/**
 * TLS settings from configured PEM files, for the AMQPS listener and HTTPS: certificate, key and
 * an optional CA bundle; with verify-peer, clients must present a certificate the CA signed
 * (RabbitMQ's verify_peer with fail_if_no_peer_cert = true).
 */
import { readFileSync } from "node:fs";
import type { SecureContextOptions, TlsOptions } from "node:tls";

export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
  readonly ca: string | null;
  readonly verifyPeer: boolean;
}

/** Null when no certificate is configured; throws when the certificate lacks its key. */
export function tlsFilesOf(config: { tlsCert: string | null; tlsKey: string | null; tlsCa: string | null; tlsVerifyPeer: boolean }): TlsFiles | null {
  if (config.tlsCert === null) return null;
  if (config.tlsKey === null) throw new Error("tlsCert is set without tlsKey");
  if (config.tlsVerifyPeer && config.tlsCa === null) throw new Error("tlsVerifyPeer needs tlsCa to verify client certificates with");
  return { cert: config.tlsCert, key: config.tlsKey, ca: config.tlsCa, verifyPeer: config.tlsVerifyPeer };
}

export function tlsServerOptions(files: TlsFiles): TlsOptions & SecureContextOptions {
  return {
    cert: readFileSync(files.cert),
    key: readFileSync(files.key),
    ...(files.ca ? { ca: readFileSync(files.ca) } : {}),
    requestCert: files.verifyPeer,
    rejectUnauthorized: files.verifyPeer,
  };
}
