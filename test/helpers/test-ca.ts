/**
 * A throw-away certificate authority made with openssl in a temp dir: a CA, a server certificate
 * for 127.0.0.1/localhost (with a chosen lifetime) and a client certificate, all signed by the CA.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCa {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  pem(file: string): Buffer;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
}

export function makeTestCa(serverDays = 365): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "coney-ca-"));
  const p = (f: string): string => join(dir, f);
  openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=Coney Test CA");
  writeFileSync(p("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  const leaf = (name: string, days: number, ext: string[]): void => {
    openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
    openssl(dir, "x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.pem`, "-days", String(days), ...ext);
  };
  leaf("server", serverDays, ["-extfile", "server.ext"]);
  leaf("client", 30, []);
  return {
    dir,
    caCert: p("ca.pem"),
    serverCert: p("server.pem"),
    serverKey: p("server.key"),
    clientCert: p("client.pem"),
    clientKey: p("client.key"),
    pem: (file) => readFileSync(file),
  };
}
