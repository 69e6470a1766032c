// Keeps the error catalogue honest: every AMQP code is a reply code of the vendored spec, and
// each entry's close level is the spec's soft-error (channel) / hard-error (connection) class.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ERROR_CATALOGUE } from "../../src/errors/catalogue.js";
import { REPLY_CODE_LEVEL, REPLY_CODE_NAMES } from "../../src/amqp/codec/generated.js";

const spec = JSON.parse(readFileSync(new URL("../../../spec/amqp-rabbitmq-0.9.1.json", import.meta.url), "utf8")) as {
  constants: Array<{ name: string; value: number; class?: string }>;
};

describe("error catalogue", () => {
  it("uses only the spec's reply codes, with the spec's names", () => {
    for (const [kind, e] of Object.entries(ERROR_CATALOGUE)) {
      const c = spec.constants.find((k) => k.value === e.amqpCode && k.class);
      assert.ok(c, `${kind}: ${e.amqpCode} is not an error code of the spec`);
      assert.equal(e.amqpName, c.name.replace(/-/g, "_"), kind);
      assert.equal(REPLY_CODE_NAMES[e.amqpCode], e.amqpName, kind);
    }
  });

  it("closes the channel for soft errors and the connection for hard ones", () => {
    for (const [kind, e] of Object.entries(ERROR_CATALOGUE)) {
      assert.equal(e.level, REPLY_CODE_LEVEL[e.amqpCode], `${kind}: level of ${e.amqpCode}`);
    }
  });

  it("gives every kind an HTTP status and error text", () => {
    for (const [kind, e] of Object.entries(ERROR_CATALOGUE)) {
      assert.ok(e.httpStatus >= 400 && e.httpStatus < 600, kind);
      assert.ok(e.httpError.length > 0, kind);
    }
  });
});
