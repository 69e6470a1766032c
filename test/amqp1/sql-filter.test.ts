// The pure parts of AMQP SQL filter expressions (src/amqp1/sql-filter*.ts, sql-like.ts): which
// expressions are taken (RabbitMQ 4.2's rabbit_amqp_filter_sql:parse, its lexer and grammar) and
// how a message is matched (three-valued logic, comparisons, arithmetic, LIKE, IN, IS NULL).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSqlFilter, passesSql, type SqlFilter } from "../../src/amqp1/sql-filter.js";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { str, sym, ulong } from "../../src/amqp10/amqp10-value.js";
import type { Amqp10Message } from "../../src/amqp10/message-sections.js";

const sqlValue = (sql: string, descriptor: Amqp10Value = sym("amqp:sql-filter")): Amqp10Value => ({ type: "described", descriptor, value: str(sql) });
const parse = (sql: string): SqlFilter => {
  const f = parseSqlFilter(sqlValue(sql));
  assert.ok(f !== null, `taken: ${sql}`);
  return f;
};
const refused = (sql: string): void => assert.equal(parseSqlFilter(sqlValue(sql)), null, `not taken: ${sql}`);

const m: Amqp10Message = {
  header: [{ type: "boolean", value: true }, { type: "ubyte", value: 7 }],
  properties: {
    messageId: ulong(42),
    userId: { type: "binary", value: Buffer.from("guest") },
    subject: str("order.created.eu"),
    contentType: sym("application/json"),
    creationTime: { type: "timestamp", value: 1_700_000_000_000 },
    groupSequence: { type: "uint", value: 3 },
  },
  applicationProperties: [
    [str("region"), str("eu-west")],
    [str("weight"), { type: "double", value: 2.5 }],
    [str("count"), { type: "int", value: 10 }],
    [str("urgent"), { type: "boolean", value: true }],
    [str("with space"), str("yes")],
    [str("blob"), { type: "binary", value: Buffer.from([0xca, 0xfe]) }],
    [str("nothing"), { type: "null" }],
  ],
};
const pass = (sql: string, msg: Amqp10Message = m): boolean => passesSql(parse(sql), msg);

describe("AMQP SQL filter expressions", () => {
  it("takes both descriptors and refuses what RabbitMQ 4.2 refuses", () => {
    assert.ok(parseSqlFilter(sqlValue("count = 10", ulong(0x120))) !== null);
    assert.equal(parseSqlFilter(sqlValue("count = 10", sym("other"))), null);
    assert.equal(parseSqlFilter({ type: "described", descriptor: sym("amqp:sql-filter"), value: sym("count = 10") }), null, "the expression must be a string");
    for (const bad of [
      "count = ",
      "count == 10",
      "a = 1 = 1",
      "count and 1",
      "lower = 1",
      "EXISTS = 1",
      "p.nope = 1",
      "h.durable = TRUE",
      "x.y = 1",
      "(count = 10",
      "count IN ()",
      "(count) IS NULL",
      "count + 1 IS NULL",
      "region LIKE 'a' ESCAPE 'ab'",
      "region LIKE 'a!' ESCAPE '!'",
      "count = 0x1f",
      "count = .5",
      "- -1 = 1",
      "count = 1 #",
    ])
      refused(bad);
    refused(`count = ${"1 + ".repeat(100)}1`);
    refused(`region = '${"x".repeat(4100)}'`);
  });

  it("compares numbers across types, strings, binaries and booleans; non-like types are not equal and not ordered", () => {
    assert.ok(pass("count = 10 AND count = 10.0 AND weight > 2 AND weight < 2.6"));
    assert.ok(pass("p.message_id = 42 AND p.group_sequence >= 3 AND h.priority = 7"));
    assert.ok(pass("region = 'eu-west' AND region <> 'us' AND region != \"us\" AND region > 'eu' AND region < 'f'"));
    assert.ok(pass("p.user_id = 'guest'"), "a binary equals a string of the same bytes");
    assert.ok(pass("blob = 0xCAFE"));
    assert.ok(pass("urgent AND urgent = TRUE AND NOT FALSE"));
    assert.ok(!pass("region = 10"));
    assert.ok(pass("region <> 10"), "different types are never equal");
    assert.ok(!pass("region > 10"), "ordering different types is false");
    assert.ok(!pass("urgent > FALSE"));
    assert.ok(pass("p.content_type = 'application/json' AND p.creation_time = 1700000000000"));
    assert.ok(pass("[with space] = 'yes' AND a.region = 'eu-west' AND application_properties.count = 10"));
    assert.ok(pass("h.priority = 4", { properties: {} }), "a message without priority has 4");
  });

  it("evaluates arithmetic, unary minus and UTC()", () => {
    assert.ok(pass("count * 2 + 1 = 21 AND count / 4 = 2.5 AND count % 3 = 1 AND -count = -10 AND +count = 10"));
    assert.ok(pass("(count - 4) * 2 = 12"));
    assert.ok(!pass("count / 0 = 1"), "division by zero is unknown");
    assert.ok(!pass("weight % 2 = 0.5"), "% takes integers only");
    assert.ok(pass("p.creation_time < UTC()"));
  });

  it("uses three-valued logic: NULL makes comparisons unknown, unknown never passes, AND/OR/NOT as JMS", () => {
    assert.ok(!pass("missing = 1"));
    assert.ok(!pass("NOT (missing = 1)"), "NOT unknown is unknown");
    assert.ok(pass("missing = 1 OR count = 10"), "unknown OR true is true");
    assert.ok(!pass("missing = 1 AND count = 10"));
    assert.ok(pass("NOT (missing = 1 AND count = 11)"), "unknown AND false is false, so NOT of it is true");
    assert.ok(pass("missing IS NULL AND nothing IS NULL AND count IS NOT NULL AND p.to IS NULL"));
    assert.ok(!pass("missing + 1 = 1"));
    assert.ok(!pass("missing IN ('a')") && !pass("missing NOT IN ('a')"), "IN on NULL is unknown either way");
  });

  it("matches IN lists and LIKE patterns: exact, prefix, suffix, both, _ and several %, ESCAPE", () => {
    assert.ok(pass("region IN ('us', 'eu-west') AND count IN (1, 10.0) AND region NOT IN ('us')"));
    assert.ok(pass("p.subject LIKE 'order.created.eu'"));
    assert.ok(pass("p.subject LIKE 'order.%'"));
    assert.ok(pass("p.subject LIKE '%.eu'"));
    assert.ok(pass("p.subject LIKE 'order%eu'"));
    assert.ok(!pass("p.subject LIKE 'order%us'"));
    assert.ok(pass("p.subject LIKE 'order._reated%' AND p.subject LIKE '%created%'"));
    assert.ok(pass("region LIKE 'eu!-%' ESCAPE '!'"));
    assert.ok(pass("p.subject NOT LIKE '%.us'"));
    assert.ok(!pass("region LIKE 'eu_'"), "_ is exactly one character");
    assert.ok(!pass("count LIKE '1%'"), "LIKE on a number is unknown");
    assert.ok(pass("region LIKE 'eu-wes_' AND region LIKE '%-%'"));
    assert.ok(!pass("p.subject LIKE 'order.(created|x)%_'"), "regular expression characters are literal");
    assert.ok(pass("p.subject LIKE 'order_created%_u'") && !pass("p.subject LIKE 'order\\_%_' ESCAPE '\\'"));
  });

  it("binds NOT tighter than AND, AND tighter than OR", () => {
    assert.ok(pass("count = 1 AND count = 2 OR count = 10"));
    assert.ok(pass("NOT count = 1 AND count = 10"));
    assert.ok(!pass("NOT (count = 1 OR count = 10)"));
  });
});
