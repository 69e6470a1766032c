/**
 * Reads when configured certificates expire (node:crypto X509Certificate), for the
 * certificate-expiration health check: which listeners' certificates end within a window.
 * RabbitMQ's units: days, weeks, months (30 days), years (365 days).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";

export interface ListenerCertificate {
  readonly protocol: string;
  readonly port: number;
  readonly file: string;
}

/**
 * Notes the certificate a protocol's listener was bound with, once: a side listener that is bound
 * again after a retry (side-listeners.ts) does not list its certificate twice.
 */
export function noteCertificate(certs: ListenerCertificate[], c: ListenerCertificate): void {
  if (!certs.some((x) => x.protocol === c.protocol)) certs.push(c);
}

export const EXPIRY_UNITS_DAYS: Readonly<Record<string, number>> = { days: 1, weeks: 7, months: 30, years: 365 };

/** As RabbitMQ lists them in the check's `expired`. */
export interface ExpiringCertificate {
  readonly protocol: string;
  readonly port: number;
  readonly certfile: string;
  readonly certfile_expires_on: string;
}

/** The listeners whose (first) certificate is invalid at `now + withinMs`; unreadable files count as expiring. */
export function expiringWithin(certs: readonly ListenerCertificate[], withinMs: number, now: number): ExpiringCertificate[] {
  const out: ExpiringCertificate[] = [];
  for (const c of certs) {
    let validTo: Date | null;
    try {
      validTo = new Date(new X509Certificate(readFileSync(c.file)).validTo);
    } catch {
      validTo = null;
    }
    if (validTo === null || validTo.getTime() <= now + withinMs) {
      out.push({ protocol: c.protocol, port: c.port, certfile: c.file, certfile_expires_on: validTo ? validTo.toISOString() : "unreadable" });
    }
  }
  return out;
}
