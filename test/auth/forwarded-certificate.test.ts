// The proof a follower vouches for its TLS client's certificate login with (auth/forwarded-certificate.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { vouchForCertificate, vouchedCertificate } from "../../src/auth/forwarded-certificate.js";

describe("forwarded certificate logins", () => {
  const secret = Buffer.alloc(32, 1);

  it("accepts what a holder of the secret vouched for, with the client's loopback flag", () => {
    assert.deepEqual(vouchedCertificate(secret, vouchForCertificate(secret, "O=client,CN=host", false)), { user: "O=client,CN=host", loopback: false });
    assert.deepEqual(vouchedCertificate(secret, vouchForCertificate(secret, "CN=local", true)), { user: "CN=local", loopback: true });
  });

  it("refuses another secret's proof, a changed user or flag, no secret, and malformed data", () => {
    const vouched = vouchForCertificate(secret, "CN=alice", false).toString("utf8");
    assert.equal(vouchedCertificate(Buffer.alloc(32, 2), Buffer.from(vouched)), null);
    assert.equal(vouchedCertificate(secret, Buffer.from(vouched.replace("CN=alice", "CN=admin"))), null);
    assert.equal(vouchedCertificate(secret, Buffer.from(`1${vouched.slice(1)}`)), null);
    assert.equal(vouchedCertificate(Buffer.alloc(0), vouchForCertificate(Buffer.alloc(0), "CN=alice", false)), null);
    assert.equal(vouchedCertificate(secret, null), null);
    assert.equal(vouchedCertificate(secret, Buffer.from("CN=alice")), null);
    assert.equal(vouchedCertificate(secret, Buffer.from("2\0CN=alice\0abc")), null);
  });
});
