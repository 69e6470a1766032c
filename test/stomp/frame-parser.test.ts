// The pure pieces of src/stomp: the frame reader (frames split anywhere, heart-beats, content-
// length bodies with NULs, CR LF lines, limits), header escaping per version, destinations.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FrameParser, type FrameSink } from "../../src/stomp/frame-parser.js";
import type { StompFrame } from "../../src/stomp/stomp-frame.js";
import { escapeHeader, unescapeHeader } from "../../src/stomp/header-escaping.js";
import { destinationOf, parseDestination } from "../../src/stomp/stomp-destination.js";
import { queueArguments } from "../../src/stomp/queue-arguments.js";

function reader(limits = { maxHeaderBytes: 1024, maxHeaders: 10, maxBodyBytes: 1024 }) {
  const frames: StompFrame[] = [];
  const errors: string[] = [];
  let beats = 0;
  const sink: FrameSink = { frame: (f) => frames.push(f), heartbeat: () => beats++, malformed: (m, d) => errors.push(`${m}: ${d}`), isReading: true };
  const p = new FrameParser(sink, limits);
  return { p, frames, errors, beats: () => beats };
}

describe("STOMP frame reader", () => {
  it("reads frames split at every byte, skipping heart-beats between them", () => {
    const bytes = Buffer.from("\nSEND\r\ndestination:/queue/a\r\nx:1\r\n\r\nhello\u0000\n\nSUBSCRIBE\nid:1\ndestination:/topic/t\n\n\u0000");
    const r = reader();
    r.p.version = "1.2";
    for (let i = 0; i < bytes.length; i++) r.p.push(bytes.subarray(i, i + 1));
    assert.deepEqual(r.errors, []);
    assert.equal(r.frames.length, 2);
    assert.equal(r.frames[0]!.command, "SEND");
    assert.equal(r.frames[0]!.headers.get("destination"), "/queue/a");
    assert.equal(r.frames[0]!.body.toString(), "hello");
    assert.equal(r.frames[1]!.headers.get("id"), "1");
    assert.equal(r.beats(), 3);
  });

  it("reads a content-length body holding NULs; a repeated header keeps its first value", () => {
    const r = reader();
    r.p.push(Buffer.concat([Buffer.from("SEND\ncontent-length:3\nh:first\nh:second\n\n"), Buffer.from([0, 1, 0]), Buffer.from([0])]));
    assert.deepEqual([...r.frames[0]!.body], [0, 1, 0]);
    assert.equal(r.frames[0]!.headers.get("h"), "first");
  });

  it("refuses a missing NUL after content-length, oversize headers and bodies, a header without colon, bad escapes", () => {
    const cases: Array<[string, RegExp]> = [
      ["SEND\ncontent-length:1\n\nab\u0000", /not terminated by NUL/],
      [`SEND\nx:${"a".repeat(2000)}`, /Headers larger than 1024/],
      [`SEND\n\n${"b".repeat(2000)}`, /Body larger than 1024/],
      ["SEND\ncontent-length:5000\n\n", /Body larger than 1024/],
      ["SEND\nnocolon\n\n\u0000", /without a colon/],
      [`SEND\n${"h:1\n".repeat(11)}\n\u0000`, /More than 10 headers/],
      ["SEND\nx:a\\tb\n\n\u0000", /Undefined escape/],
    ];
    for (const [input, why] of cases) {
      const r = reader();
      r.p.version = "1.2";
      r.p.push(Buffer.from(input));
      assert.equal(r.frames.length, 0, input.slice(0, 30));
      assert.match(r.errors[0] ?? "", why);
    }
  });

  it("does not unescape CONNECT headers", () => {
    const r = reader();
    r.p.version = "1.2";
    r.p.push(Buffer.from("CONNECT\npasscode:a\\cb\n\n\u0000"));
    assert.equal(r.frames[0]!.headers.get("passcode"), "a\\cb");
  });
});

describe("STOMP header escaping", () => {
  it("escapes and unescapes per version (1.0 none, 1.1 without \\r, 1.2 all)", () => {
    const raw = "a:b\nc\\d\re";
    assert.equal(escapeHeader(raw, "1.2"), "a\\cb\\nc\\\\d\\re");
    assert.equal(escapeHeader(raw, "1.1"), "a\\cb\\nc\\\\d\re");
    assert.equal(escapeHeader(raw, "1.0"), raw);
    assert.equal(unescapeHeader("a\\cb\\nc\\\\d\\re", "1.2"), raw);
    assert.equal(unescapeHeader("a\\re", "1.1"), null);
    assert.equal(unescapeHeader("a\\cb", "1.0"), "a\\cb");
  });
});

describe("STOMP destinations", () => {
  it("maps RabbitMQ's destination forms, and back from exchange and routing key", () => {
    assert.deepEqual(parseDestination("/queue/a%2Fb"), { kind: "queue", queue: "a/b" });
    assert.deepEqual(parseDestination("/amq/queue/q"), { kind: "amq-queue", queue: "q" });
    assert.deepEqual(parseDestination("/topic/a.b.#"), { kind: "topic", key: "a.b.#" });
    assert.deepEqual(parseDestination("/exchange/x/k/z"), { kind: "exchange", exchange: "x", key: "k/z" });
    assert.deepEqual(parseDestination("/exchange/x"), { kind: "exchange", exchange: "x", key: "" });
    assert.deepEqual(parseDestination("/temp-queue/r"), { kind: "temp-queue", name: "r" });
    assert.deepEqual(parseDestination("/reply-queue/amq.gen-1"), { kind: "reply-queue", queue: "amq.gen-1" });
    for (const bad of ["/queue/", "/queue/a/b", "/nope/x", "queue/a", "/exchange/", "/topic/"]) assert.equal(parseDestination(bad), null, bad);
    assert.equal(destinationOf("", "q"), "/queue/q");
    assert.equal(destinationOf("amq.topic", "a.b"), "/topic/a.b");
    assert.equal(destinationOf("x", "k"), "/exchange/x/k");
  });

  it("turns known x- headers into typed queue arguments", () => {
    const args = queueArguments(new Map([["x-max-length", "10"], ["x-queue-type", "quorum"], ["x-single-active-consumer", "true"], ["x-unknown", "1"], ["other", "2"]]));
    assert.deepEqual(args, { "x-max-length": 10, "x-queue-type": "quorum", "x-single-active-consumer": true });
  });
});
