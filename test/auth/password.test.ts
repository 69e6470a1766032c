import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { hashPassword, isValidPasswordHash, verifyPassword } from "../../src/auth/password.js";

describe("RabbitMQ password hashing", () => {
  it("verifies hashes produced by RabbitMQ", () => {
    // From a real RabbitMQ 3.13 export (guest/guest) and RabbitMQ's docs (test12, foobarbaz).
    assert.ok(verifyPassword("guest", "CZGtMFp48hNvlKFZqF/4gKu/i3cMtoSkmgsGTHP07Yi8mCkY", "rabbit_password_hashing_sha256"));
    assert.ok(verifyPassword("test12", "kI3GCqW5JLMJa4iX1lo7X4D6XbYqlLgxIs30+P6tENUV2POR", "rabbit_password_hashing_sha256"));
    assert.ok(verifyPassword("foobarbaz", "27cx5+wEi8R8uwTeTr3hk5azuV3yYxxAtwPPhCyrbdsxVhqq", "rabbit_password_hashing_sha256"));
    assert.ok(!verifyPassword("guesT", "CZGtMFp48hNvlKFZqF/4gKu/i3cMtoSkmgsGTHP07Yi8mCkY", "rabbit_password_hashing_sha256"));
  });

  it("round-trips every algorithm and refuses blank passwords", () => {
    for (const alg of ["rabbit_password_hashing_sha256", "rabbit_password_hashing_sha512", "rabbit_password_hashing_md5"] as const) {
      const h = hashPassword("s3cret", alg);
      assert.ok(isValidPasswordHash(h, alg));
      assert.ok(verifyPassword("s3cret", h, alg));
      assert.ok(!verifyPassword("", h, alg));
    }
    assert.equal(hashPassword("x").length, 48);
    assert.ok(!isValidPasswordHash("not base64!", "rabbit_password_hashing_sha256"));
    assert.ok(!isValidPasswordHash("AAAA", "rabbit_password_hashing_sha256"));
  });
});
