// A lazy list gives the same answers as the built list, building only the records it returns
// when the sort and the name filter need just the cheap key fields.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { listResponse, type Item } from "../../src/http/list-query.js";

const sources = Array.from({ length: 50 }, (_, i) => ({ vhost: i % 2 ? "b" : "a", name: `q${(i * 7) % 50}`, messages: (i * 13) % 17 }));
type Source = (typeof sources)[number];

function lazy(): { list: { sources: Source[]; key: (s: Source) => Item; build: (s: Source) => Item }; built: () => number } {
  let n = 0;
  return {
    list: { sources, key: (s) => ({ vhost: s.vhost, name: s.name }), build: (s) => (n++, { ...s, extra: { depth: s.messages } }) },
    built: () => n,
  };
}

describe("lazy list responses", () => {
  const eager = sources.map((s) => ({ ...s, extra: { depth: s.messages } }));
  const queries: Array<Record<string, string>> = [
    {},
    { page: "2", page_size: "7" },
    { page: "1", page_size: "5", name: "q1", sort_reverse: "true" },
    { page: "1", page_size: "10", columns: "name,extra.depth" },
    { columns: "vhost,name" },
    { sort: "messages", page: "1", page_size: "4" },
    { sort: "extra.depth", sort_reverse: "true" },
  ];
  for (const q of queries) {
    it(`answers ${JSON.stringify(q)} as the built list does`, () => {
      const l = lazy();
      assert.deepEqual(listResponse(l.list, q), listResponse(eager, q));
    });
  }

  const byName = [...sources].sort((a, b) => (a.vhost < b.vhost ? -1 : a.vhost > b.vhost ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const q of queries) {
    it(`answers ${JSON.stringify(q)} from presorted sources as the built list does`, () => {
      const l = lazy();
      assert.deepEqual(listResponse({ ...l.list, sources: byName, presorted: true }, q), listResponse(eager, q));
    });
  }

  it("builds only the page's records when sorting by name", () => {
    const l = lazy();
    listResponse(l.list, { page: "3", page_size: "5" });
    assert.equal(l.built(), 5);
    const all = lazy();
    listResponse(all.list, { page: "1", page_size: "5", sort: "messages" });
    assert.equal(all.built(), 50, "a sort on a live figure needs every record");
  });
});
