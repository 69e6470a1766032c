// The UI over HTTPS (a test CA's certificate, trusted by Chromium by its key only), the security
// headers, and the first load's size: under 200 KB of compressed assets, served precompressed.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { makeTestCa, type TestCa } from "../helpers/test-ca.js";
import { useBrowser } from "./guest-page.js";
import { go, login, waitText } from "./ui-session.js";

const FIRST_LOAD_BUDGET = 200 * 1024;

/** What Chromium's --ignore-certificate-errors-spki-list takes: base64 SHA-256 of the key's SPKI. */
function spkiHash(certFile: string): string {
  const der = new X509Certificate(readFileSync(certFile)).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("base64");
}

function get(url: string, ca: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: new Agent({ ca }), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const buf = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: buf.length, body: buf.toString("latin1") });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("web UI over HTTPS", () => {
  let ca: TestCa;
  let broker: TestBroker;
  let base: string;

  before(async () => {
    ca = makeTestCa();
    broker = await startTestBroker({ tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0, httpTls: true });
    base = `https://127.0.0.1:${broker.httpPort}`;
  });
  after(async () => {
    await broker?.close();
  });
  const ui = useBrowser({ trustSpki: () => spkiHash(ca.serverCert) });

  it("serves the page with a strict CSP and security headers, and keeps the API's JSON 404", async () => {
    const res = await get(`${base}/`, ca.pem(ca.caCert));
    assert.equal(res.status, 200);
    const csp = String(res.headers["content-security-policy"]);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(res.headers["x-frame-options"], "DENY");
    assert.equal(res.headers["x-content-type-options"], "nosniff");
    assert.doesNotMatch(res.body, /<script>|<style>| style=| on[a-z]+=/i, "no inline script, style or handler");
    const missing = await get(`${base}/api/no-such-thing`, ca.pem(ca.caCert));
    assert.equal(missing.status, 404);
    assert.deepEqual(JSON.parse(missing.body), { error: "Object Not Found", reason: "Not Found" });
  });

  it(`loads under ${FIRST_LOAD_BUDGET / 1024} KB compressed, logs in and renders the overview over HTTPS`, async () => {
    await ui.w.page.goto(`${base}/`, { waitUntil: "networkidle0" });
    const sizes = (await ui.w.page.evaluate(`[performance.getEntriesByType("navigation")[0], ...performance.getEntriesByType("resource")]
      .map((e) => ({ name: e.name, encoded: e.encodedBodySize, decoded: e.decodedBodySize, transfer: e.transferSize }))`)) as Array<{ name: string; encoded: number; decoded: number; transfer: number }>;
    const encoded = sizes.reduce((n, e) => n + e.encoded, 0);
    const decoded = sizes.reduce((n, e) => n + e.decoded, 0);
    console.log(`# first load: ${sizes.length} files, ${(encoded / 1024).toFixed(1)} KB compressed (${(decoded / 1024).toFixed(1)} KB uncompressed)`);
    assert.ok(sizes.some((e) => /\/app-[A-Z0-9]+\.js$/.test(e.name)), "the bundle was loaded");
    assert.ok(encoded < decoded / 2, "assets arrive compressed");
    assert.ok(encoded < FIRST_LOAD_BUDGET, `first load ${encoded} bytes`);

    await login(ui.w.page, base, "guest", "guest");
    await waitText(ui.w.page, "h1", "Overview");
    await waitText(ui.w.page, "table", "https");
    await go(ui.w.page, "/queues", "Queues");
    await ui.w.shot("https-queues", false);
    assert.deepEqual(ui.w.problems, []);
  });

  it("sends the bundle brotli- or gzip-compressed as the client asks", async () => {
    const index = await get(`${base}/`, ca.pem(ca.caCert));
    const script = /src="(app-[A-Z0-9]+\.js)"/.exec(index.body)?.[1];
    assert.ok(script);
    const br = await get(`${base}/${script}`, ca.pem(ca.caCert), { "accept-encoding": "br" });
    const gz = await get(`${base}/${script}`, ca.pem(ca.caCert), { "accept-encoding": "gzip" });
    const plain = await get(`${base}/${script}`, ca.pem(ca.caCert));
    assert.equal(br.headers["content-encoding"], "br");
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.match(String(br.headers["cache-control"]), /immutable/);
    console.log(`# bundle ${script}: ${(plain.bytes / 1024).toFixed(1)} KB, brotli ${(br.bytes / 1024).toFixed(1)} KB, gzip ${(gz.bytes / 1024).toFixed(1)} KB`);
    assert.ok(br.bytes < plain.bytes / 2);
  });
});
