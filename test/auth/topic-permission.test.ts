// Topic permissions in the user registry and the permission checker: RabbitMQ's variable
// expansion, "no record means no restriction", and the count that lets publishing skip topic
// checks when no topic permission exists anywhere.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { UserRegistry } from "../../src/auth/user-registry.js";
import { PermissionChecker } from "../../src/auth/permission-check.js";
import { TopicPermission } from "../../src/auth/topic-permission.js";
import type { User } from "../../src/auth/user.js";

const user = (name: string): User => ({ name, passwordHash: "", hashingAlgorithm: "rabbit_password_hashing_sha256", tags: [], limits: {}, isInternal: true });

describe("topic permissions", () => {
  it("expand {username} and {vhost} and match unanchored", () => {
    const p = new TopicPermission("alice", "eu", { exchange: "amq.topic", write: "^{username}\\.{vhost}\\.", read: "x" });
    assert.ok(p.allows("write", "alice.eu.orders"));
    assert.ok(!p.allows("write", "bob.eu.orders"));
    assert.ok(p.allows("read", "axb"), "unanchored, like permission patterns");
  });

  it("count, replace and clear per exchange; deleting the user or the vhost drops them", () => {
    const r = new UserRegistry();
    r.put(user("alice"));
    assert.equal(r.setTopicPermission("alice", "v", { exchange: "x1", write: ".*", read: ".*" }), true, "the first of (user, vhost) is created");
    assert.equal(r.setTopicPermission("alice", "v", { exchange: "x2", write: ".*", read: ".*" }), false, "RabbitMQ answers 204 for more");
    assert.equal(r.setTopicPermission("alice", "v", { exchange: "x2", write: "^a", read: ".*" }), false);
    assert.equal(r.topicPermissionCount, 2);
    assert.equal(r.topicPermission("alice", "v", "x2")?.write, "^a");
    assert.deepEqual(r.clearTopicPermissions("alice", "v", "x1").map((p) => p.exchange), ["x1"]);
    assert.equal(r.topicPermissionCount, 1);
    r.setTopicPermission("alice", "w", { exchange: "x1", write: ".*", read: ".*" });
    r.clearVhost("w");
    assert.equal(r.topicPermissionCount, 1);
    r.delete("alice");
    assert.equal(r.topicPermissionCount, 0);
    assert.deepEqual(r.allTopicPermissions(), []);
  });

  it("refuse a routing key outside the pattern with RabbitMQ's text; no record, no restriction", () => {
    const r = new UserRegistry();
    r.put(user("alice"));
    const checker = new PermissionChecker(r, user("alice"));
    checker.checkTopic("v", "amq.topic", "write", "anything");
    r.setTopicPermission("alice", "v", { exchange: "amq.topic", write: "^eu\\.", read: "^bind\\." });
    checker.checkTopic("v", "amq.topic", "write", "eu.1");
    checker.checkTopic("v", "other", "write", "us.1");
    assert.throws(() => checker.checkTopic("v", "amq.topic", "write", "us.1"), /access to topic 'us.1' in exchange 'amq.topic' in vhost 'v' refused for user 'alice'/);
    assert.throws(() => checker.checkTopic("v", "amq.topic", "read", "eu.1"), /access to topic 'eu.1'/);
  });
});
