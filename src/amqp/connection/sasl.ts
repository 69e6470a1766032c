/**
 * SASL mechanisms of connection.start-ok (AMQP 0-9-1 §1.4.2.2): PLAIN ("\0user\0password",
 * RFC 4616) and RabbitMQ's AMQPLAIN (a field table without its length prefix holding LOGIN and
 * PASSWORD). Returns the credentials or null when the response is malformed.
 */
import { decodeTableContents } from "../codec/field-table.js";

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

export function parseSaslResponse(mechanism: string, response: Buffer): Credentials | null {
  if (mechanism === "PLAIN") {
    // authzid \0 authcid \0 passwd; the authorization identity is ignored, as RabbitMQ does.
    const first = response.indexOf(0);
    const second = first < 0 ? -1 : response.indexOf(0, first + 1);
    if (second < 0) return null;
    return { username: response.subarray(first + 1, second).toString("utf8"), password: response.subarray(second + 1).toString("utf8") };
  }
  if (mechanism === "AMQPLAIN") {
    try {
      const t = decodeTableContents(response);
      const login = t["LOGIN"];
      const password = t["PASSWORD"];
      if (typeof login !== "string" || typeof password !== "string") return null;
      return { username: login, password };
    } catch {
      return null;
    }
  }
  return null;
}
