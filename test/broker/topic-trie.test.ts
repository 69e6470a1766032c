import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TopicTrie } from "../../src/broker/exchange/topic-trie.js";

function matches(bindings: string[], key: string): string[] {
  const t = new TopicTrie<string>();
  for (const b of bindings) t.add(b, b);
  const out = new Set<string>();
  t.match(key, (v) => out.add(v));
  return [...out].sort();
}

describe("topic trie", () => {
  it("matches literal, * and # keys as RabbitMQ does", () => {
    const all = ["a.b.c", "a.*.c", "a.#", "#", "*.b.*", "a.b", "#.c", "a.#.c", "*"];
    assert.deepEqual(matches(all, "a.b.c"), ["#", "#.c", "*.b.*", "a.#", "a.#.c", "a.*.c", "a.b.c"].sort());
    assert.deepEqual(matches(all, "a"), ["#", "*", "a.#"].sort());
    assert.deepEqual(matches(all, "a.c"), ["#", "#.c", "a.#", "a.#.c"].sort());
    assert.deepEqual(matches(all, "x.y.z.c"), ["#", "#.c"].sort());
  });

  it("treats the empty key as zero words", () => {
    assert.deepEqual(matches(["#", "*", ""], ""), ["", "#"].sort());
  });

  it("removes bindings and prunes the trie", () => {
    const t = new TopicTrie<string>();
    t.add("a.*", "x");
    t.add("a.*", "y");
    t.remove("a.*", "x");
    const out: string[] = [];
    t.match("a.b", (v) => out.push(v));
    assert.deepEqual(out, ["y"]);
    t.remove("a.*", "y");
    t.remove("missing.key", "z");
    const none: string[] = [];
    t.match("a.b", (v) => none.push(v));
    assert.deepEqual(none, []);
  });
});
