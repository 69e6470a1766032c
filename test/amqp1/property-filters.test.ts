// The pure parts of property filter expressions (src/amqp1/property-filters.ts): which filters are
// taken (RabbitMQ 4.1's rabbit_amqp_filter_prop:parse) and how a message is matched.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parsePropertyFilter, passesAll, type PropertyFilter } from "../../src/amqp1/property-filters.js";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { str, sym, ulong } from "../../src/amqp10/amqp10-value.js";
import type { Amqp10Message } from "../../src/amqp10/message-sections.js";

const described = (descriptor: Amqp10Value, entries: Array<readonly [Amqp10Value, Amqp10Value]>): Amqp10Value => ({ type: "described", descriptor, value: { type: "map", value: entries } });
const props = (...entries: Array<readonly [string, Amqp10Value]>): Amqp10Value => described(sym("amqp:properties-filter"), entries.map(([k, v]) => [sym(k), v] as const));
const app = (...entries: Array<readonly [string, Amqp10Value]>): Amqp10Value => described(ulong(0x174), entries.map(([k, v]) => [str(k), v] as const));
const parse = (v: Amqp10Value): PropertyFilter => {
  const f = parsePropertyFilter(v);
  assert.ok(f !== null, "the filter is taken");
  return f;
};

describe("property filter expressions", () => {
  it("takes both descriptors (symbol or code) and refuses what RabbitMQ 4.1 refuses", () => {
    assert.equal(parse(props(["message-id", str("a")])).section, "properties");
    assert.equal(parse(described(ulong(0x173), [[sym("message-id"), str("a")]])).section, "properties");
    assert.equal(parse(app(["k", str("a")])).section, "application-properties");
    assert.equal(parsePropertyFilter(props()), null, "empty");
    assert.equal(parsePropertyFilter(app(...Array.from({ length: 17 }, (_, i) => [`k${i}`, str("v")] as const))), null, "over 16 fields");
    assert.equal(parsePropertyFilter(props(["content-type", str("text/plain")])), null, "content-type must be a symbol");
    assert.equal(parsePropertyFilter(props(["message-id", str("&x:a")])), null, "unknown modifier");
    assert.equal(parsePropertyFilter(described(sym("amqp:properties-filter"), [[str("message-id"), str("a")]])), null, "a properties key must be a symbol");
    assert.equal(parsePropertyFilter(described(sym("other"), [[sym("message-id"), str("a")]])), null, "other descriptor");
  });

  it("matches prefixes, suffixes, the && escape, numbers across types, null and absent values", () => {
    const m: Amqp10Message = {
      properties: { messageId: str("order-42.eu"), contentType: sym("text/plain") },
      applicationProperties: [
        [str("n"), { type: "int", value: 7 }],
        [str("amp"), str("&lit")],
        [str("bin"), { type: "binary", value: Buffer.from("abc") }],
      ],
    };
    const pass = (v: Amqp10Value): boolean => passesAll([parse(v)], m);
    assert.ok(pass(props(["message-id", str("&p:order-")])));
    assert.ok(pass(props(["message-id", str("&s:.eu")])));
    assert.ok(!pass(props(["message-id", str("&s:.us")])));
    assert.ok(pass(props(["content-type", sym("text/plain")])));
    assert.ok(!pass(props(["correlation-id", str("x")])), "an absent property does not equal a value");
    assert.ok(pass(app(["n", ulong(7)])), "int 7 equals ulong 7");
    assert.ok(pass(app(["n", { type: "double", value: 7 }])), "int 7 equals double 7.0");
    assert.ok(!pass(app(["n", { type: "long", value: 8n }])));
    assert.ok(pass(app(["amp", str("&&lit")])), "&& escapes a leading &");
    assert.ok(pass(app(["bin", str("&p:ab")])), "a prefix tests a binary's bytes");
    assert.ok(pass(app(["n", { type: "null" }])), "null matches a present value");
    assert.ok(!pass(app(["missing", { type: "null" }])), "null does not match an absent application property");
    assert.ok(!passesAll([parse(props(["message-id", str("&p:order-")])), parse(app(["n", ulong(8)]))], m), "every filter must pass");
  });

  it("takes and matches every properties field of RabbitMQ 4.1: to, subject, group-sequence, reply-to-group-id, absolute-expiry-time", () => {
    const m: Amqp10Message = {
      properties: {
        to: str("/exchanges/orders/eu"),
        subject: str("order.created"),
        groupSequence: { type: "uint", value: 3 },
        replyToGroupId: str("rg-1"),
        absoluteExpiryTime: { type: "timestamp", value: 1_700_000_000_000 },
      },
    };
    const pass = (v: Amqp10Value): boolean => passesAll([parse(v)], m);
    assert.ok(pass(props(["to", str("&p:/exchanges/orders/")])));
    assert.ok(pass(props(["subject", str("&s:.created")])));
    assert.ok(!pass(props(["subject", str("order.shipped")])));
    assert.ok(pass(props(["group-sequence", { type: "uint", value: 3 }])));
    assert.ok(!pass(props(["group-sequence", { type: "uint", value: 4 }])));
    assert.ok(pass(props(["reply-to-group-id", str("&p:rg-")])));
    assert.ok(pass(props(["absolute-expiry-time", { type: "timestamp", value: 1_700_000_000_000 }])));
    assert.ok(pass(props(["subject", str("order.created")], ["to", str("&s:/eu")])), "every field of one filter must match");
    assert.ok(!pass(props(["subject", str("order.created")], ["to", str("&s:/us")])));
    assert.ok(!passesAll([parse(props(["subject", str("&p:")]))], { properties: {} }), "an empty prefix still needs a value");
  });

  it("refuses a field's wrong type as RabbitMQ 4.1 does", () => {
    assert.equal(parsePropertyFilter(props(["subject", sym("s")])), null, "subject must be a string");
    assert.equal(parsePropertyFilter(props(["group-sequence", ulong(3)])), null, "group-sequence must be a uint");
    assert.equal(parsePropertyFilter(props(["absolute-expiry-time", ulong(3)])), null, "absolute-expiry-time must be a timestamp");
    assert.equal(parsePropertyFilter(props(["to", str("&q:x")])), null, "unknown modifier on to");
    assert.equal(parsePropertyFilter(props(["subject", { type: "null" }])), null, "no null reference value for a property (only application properties take one)");
  });
});
