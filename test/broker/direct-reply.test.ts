// Direct reply-to keys (src/broker/direct-reply.ts): on a single node a key is random and a reply
// reaches its requester here; on one of several nodes (`coney --workers N`) the key carries the
// node's tag, and a reply whose key names another node goes to the forwarder, never to a local
// requester, while one naming no node at all has no route.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMessage, DirectReplyRegistry, replyNodeTag, type Message, type ReplyForwarder } from "../../src/broker/index.js";

const reply = (routingKey: string): Message => createMessage("", routingKey, {}, null, Buffer.from("r"), 0);

describe("direct reply-to keys", () => {
  it("on a single node: a random key with no node part, delivered here while registered", () => {
    const r = new DirectReplyRegistry();
    const got: Message[] = [];
    const key = r.register({ deliverReply: (m) => got.push(m) });
    assert.ok(!key.includes("."));
    assert.equal(r.deliver(DirectReplyRegistry.address(key), reply(DirectReplyRegistry.address(key))), true);
    r.unregister(key);
    assert.equal(r.deliver(DirectReplyRegistry.address(key), reply("x")), false, "a requester gone: no route");
    assert.equal(got.length, 1);
  });

  it("on one of several nodes: the key names this node, and a reply naming another node is forwarded", () => {
    const forwarded: Array<[string, string]> = [];
    const forwarder: ReplyForwarder = { forward: (tag, m) => (forwarded.push([tag, m.routingKey]), tag === replyNodeTag("n-w1@h")) };
    const r = new DirectReplyRegistry();
    r.reachOthers("n-w0@h", forwarder);
    const got: Message[] = [];
    const key = r.register({ deliverReply: (m) => got.push(m) });
    assert.ok(key.startsWith(`${replyNodeTag("n-w0@h")}.`), key);
    assert.equal(r.deliver(DirectReplyRegistry.address(key), reply("local")), true);
    assert.equal(got.length, 1, "this node's own requester is served here");
    const other = `amq.rabbitmq.reply-to.${replyNodeTag("n-w1@h")}.abc`;
    assert.equal(r.deliver(other, reply(other)), true);
    assert.deepEqual(forwarded, [[replyNodeTag("n-w1@h"), other]]);
    assert.equal(r.deliver("amq.rabbitmq.reply-to.bm9ib2R5.abc", reply("x")), false, "a node the forwarder does not reach");
    assert.equal(r.deliver("amq.rabbitmq.reply-to.nodotkey", reply("x")), false, "a key naming no node");
    assert.equal(got.length, 1);
  });
});
