// coneyctl over HTTPS: a TLS-terminating proxy (self-signed certificate made with openssl) in
// front of a real broker's management port. --cacertfile verifies it, --insecure skips the
// check, and an unverifiable certificate is a clear failure (69).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { run } from "./run-coneyctl.js";

// openssl is installed by scripts/system-packages.sh (npm test): the suite never skips.
describe("coneyctl over HTTPS", () => {
  let broker: TestBroker;
  let proxy: https.Server;
  let dir: string;
  let port: number;
  before(async () => {
    broker = await startTestBroker();
    dir = mkdtempSync(join(tmpdir(), "coneyctl-tls-"));
    const made = spawnSync("openssl", [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
      "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
    ]);
    assert.equal(made.status, 0, String(made.stderr));
    proxy = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (req, res) => {
      const upstream = http.request({ host: "127.0.0.1", port: broker.httpPort!, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    port = (proxy.address() as { port: number }).port;
  });
  after(async () => {
    await new Promise((r) => proxy.close(r));
    await broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("--cacertfile verifies the broker; --insecure skips verification; no trust is exit 69", async () => {
    const base = ["--port", String(port)];
    const [verified, insecure, untrusted] = await Promise.all([
      run([...base, "--cacertfile", join(dir, "cert.pem"), "list_users", "-q"]),
      run([...base, "--use-tls", "--insecure", "list_vhosts", "-q"]),
      run([...base, "--use-tls", "list_vhosts"]),
    ]);
    assert.deepEqual(verified, { code: 0, stderr: "", stdout: "user\ttags\nguest\t[administrator]\n" });
    assert.deepEqual(insecure, { code: 0, stderr: "", stdout: "name\n/\n" });
    assert.equal(untrusted.code, 69);
    assert.match(untrusted.stderr, new RegExp(`^Error:\\nCould not connect to the broker at 127\\.0\\.0\\.1:${port} \\(.*self.signed`, "i"));
  });
});
