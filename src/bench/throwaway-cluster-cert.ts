/**
 * A throw-away certificate for `coney-perf spread --cluster N --cluster-tls`: one self-signed
 * certificate for 127.0.0.1 made with openssl in the benchmark's temporary directory (removed with
 * it), presented by every node and trusted as the CA by every node, so the spread nodes' links and
 * their stores' replication run over TLS exactly as `--cluster-tls` runs them in production.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** The node arguments that turn `--cluster-tls` on with a certificate made in `dir`; the other TLS listeners off or on port 0. */
export function throwawayClusterTls(dir: string): string[] {
  const cert = join(dir, "cluster-cert.pem");
  const key = join(dir, "cluster-key.pem");
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=coney-perf", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  } catch (err) {
    throw new Error(`--cluster-tls: openssl could not make a certificate (${(err as Error).message}); install openssl`);
  }
  // The certificate makes the broker open its TLS client listeners too: off, or on a free port, so they take no fixed port.
  return ["--cluster-tls", "true", "--tls-cert", cert, "--tls-key", key, "--tls-ca", cert, "--amqps-port", "0", "--mqtts-port", "off", "--stomps-port", "off", "--stream-tls-port", "off"];
}
