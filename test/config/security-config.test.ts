// The security settings parse from flags and environment like the others.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/load-config.js";

describe("security configuration", () => {
  it("parses OAuth lists, TLS switches, fractions and limits", () => {
    const c = loadConfig(
      ["--oauth-resource-server-id", "rabbitmq", "--oauth-key-files", "k1=/a.pem, k2=/jwks.json", "--tls-verify-peer", "true", "--mem-high-watermark", "0.6"],
      { CONEY_HTTP_RATE_LIMIT: "0", CONEY_HTTP_TLS: "1", CONEY_MAX_CONNECTIONS: "100" },
    );
    assert.equal(c.oauthResourceServerId, "rabbitmq");
    assert.deepEqual(c.oauthKeyFiles, ["k1=/a.pem", "k2=/jwks.json"]);
    assert.equal(c.tlsVerifyPeer, true);
    assert.equal(c.httpTls, true);
    assert.equal(c.memHighWatermark, 0.6);
    assert.equal(c.httpRateLimit, 0);
    assert.equal(c.maxConnections, 100);
    const d = loadConfig([], {});
    assert.deepEqual([d.amqpsPort, d.httpRateLimit > 0, d.oauthResourceServerId, d.tlsCert], [5671, true, null, null]);
  });

  it("refuses values of the wrong kind", () => {
    assert.throws(() => loadConfig(["--tls-verify-peer", "yes"], {}), /'yes' is not true or false/);
    assert.throws(() => loadConfig([], { CONEY_MEM_HIGH_WATERMARK: "lots" }), /CONEY_MEM_HIGH_WATERMARK: 'lots' is not a non-negative number/);
  });
});
