// federation-upstream / federation-upstream-set values and the federation policy keys refused
// with RabbitMQ 3.10's reasons (recorded from a RabbitMQ 3.10.8 node with rabbitmq_federation:
// its API HTML-escapes the reason's < and >, Coney's does not), over the real API, storing nothing.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { validateUpstream, validateUpstreamSet } from "../../src/federation/upstream-validation.js";
import { upstreamsFor } from "../../src/federation/upstream-config.js";

const failed = (...lines: string[]): { error: string; reason: string } => ({ error: "bad_request", reason: `Validation failed\n\n${lines.map((l) => `${l}\n`).join("")}` });

describe("federation upstream validation", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => broker?.close());

  const cases: [string, unknown, string][] = [
    ["no uri", {}, 'Key "uri" not found in u1'],
    ["a number as uri", { uri: 5 }, "uri should be list, actually was 5"],
    ["a non-AMQP scheme", { uri: "foo://x" }, '"foo://x" not a valid URI: {{unexpected_uri_scheme,"foo"},"foo://x"}'],
    ["max-hops not a number", { uri: "amqp://h", "max-hops": "a" }, 'max-hops should be a number, actually was <<"a">>'],
    ["an unknown ack-mode", { uri: "amqp://h", "ack-mode": "x" }, 'ack-mode should be one of [<<"no-ack">>,<<"on-publish">>,<<"on-confirm">>], actually was <<"x">>'],
    ["trust-user-id not a boolean", { uri: "amqp://h", "trust-user-id": "x" }, 'trust-user-id should be boolean, actually was <<"x">>'],
    ["an unknown key", { uri: "amqp://h", foo: 1 }, 'Unrecognised terms [{<<"foo">>,1}] in u1'],
    ["a list with a non-string", { uri: ["amqp://h", 3] }, "uri should be list, actually was 3"],
    ["exchange not a string", { uri: "amqp://h", exchange: 3 }, "exchange should be binary, actually was 3"],
  ];
  for (const [what, value, reason] of cases) {
    it(`refuses ${what}`, async () => {
      const res = await api("PUT", "/api/parameters/federation-upstream/%2f/u1", { value });
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, failed(reason));
    });
  }

  it("lists every problem as RabbitMQ does: unrecognised keys first, then the checks last to first", () => {
    assert.deepEqual(validateUpstream("u", { "max-hops": "a", "prefetch-count": "b", bogus: true }, () => null), [
      'Unrecognised terms [{<<"bogus">>,true}] in u',
      'max-hops should be a number, actually was <<"a">>',
      'prefetch-count should be a number, actually was <<"b">>',
      'Key "uri" not found in u',
    ]);
  });

  it("refuses bad upstream sets and stores nothing", async () => {
    for (const [value, reason] of [
      [[{}], 'Key "upstream" not found in s1'],
      [[{ upstream: "a", "max-hops": "x" }], 'max-hops should be a number, actually was <<"x">>'],
      [[{ upstream: "a", uri: "amqp://x" }], 'Unrecognised terms [{<<"uri">>,<<"amqp://x">>}] in s1'],
    ] as const) {
      const res = await api("PUT", "/api/parameters/federation-upstream-set/%2f/s1", { value });
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, failed(reason));
    }
    assert.deepEqual(validateUpstreamSet("s", []), []);
    assert.deepEqual((await api("GET", "/api/parameters/federation-upstream")).json, []);
    assert.deepEqual((await api("GET", "/api/parameters/federation-upstream-set")).json, []);
  });

  it("refuses federation policy keys as RabbitMQ's policy validator does", async () => {
    const both = await api("PUT", "/api/policies/%2f/p1", { pattern: "^x", definition: { "federation-upstream": "a", "federation-upstream-set": "b" } });
    assert.equal(both.status, 400);
    assert.deepEqual(both.json, failed("cannot specify federation-upstream, federation-upstream-set or federation-upstream-pattern together"));
    const notString = await api("PUT", "/api/policies/%2f/p1", { pattern: "^x", definition: { "federation-upstream": 3 } });
    assert.deepEqual(notString.json, failed("3 is not a valid federation upstream name"));
    assert.equal((await api("GET", "/api/policies/%2f/p1")).status, 404);
  });

  it("accepts valid upstreams and sets, and resolves set members over upstream keys with RabbitMQ's defaults", async () => {
    assert.equal((await api("PUT", "/api/parameters/federation-upstream/%2f/u1", { value: { uri: ["amqp://h1", "amqp://h2"], "max-hops": 2, "queue-type": "quorum" } })).status, 201);
    assert.equal((await api("PUT", "/api/parameters/federation-upstream-set/%2f/s1", { value: [{ upstream: "u1", exchange: "other" }, { upstream: "missing" }] })).status, 201);
    const upstreams = new Map<string, unknown>([["u1", { uri: ["amqp://h1", "amqp://h2"], "max-hops": 2 }]]);
    const sets = new Map<string, unknown>([["s1", [{ upstream: "u1", exchange: "other" }, { upstream: "missing" }]]]);
    const [u] = upstreamsFor({ "federation-upstream-set": "s1" }, "x", upstreams, sets);
    assert.deepEqual(u, {
      name: "u1",
      uris: ["amqp://h1", "amqp://h2"],
      exchange: "other",
      queue: "x",
      consumerTag: "federation-link-u1",
      prefetchCount: 1000,
      reconnectDelay: 5,
      maxHops: 2,
      expires: null,
      messageTtl: null,
      trustUserId: false,
      ackMode: "on-confirm",
      queueType: "classic",
      resourceCleanupMode: "default",
    });
    assert.equal(upstreamsFor({ "federation-upstream-set": "s1" }, "x", upstreams, sets).length, 1, "a member naming a missing upstream is skipped");
    assert.deepEqual(upstreamsFor({ "federation-upstream-pattern": "^u" }, "x", upstreams, sets).map((x) => x.name), ["u1"]);
    assert.deepEqual(upstreamsFor({ "federation-upstream-set": "all" }, "x", upstreams, sets).map((x) => x.name), ["u1"]);
  });
});
