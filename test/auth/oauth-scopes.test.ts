// RabbitMQ's OAuth 2.0 scope grammar, as pure functions: each form, wildcards, other servers' scopes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ScopeGrants, scopesOf, wildcardMatches } from "../../src/auth/oauth/scope-grants.js";

describe("OAuth 2.0 scopes", () => {
  it("match wildcards anchored at both ends", () => {
    assert.ok(wildcardMatches("*", ""));
    assert.ok(wildcardMatches("orders-*", "orders-eu"));
    assert.ok(!wildcardMatches("orders-*", "x-orders-eu"));
    assert.ok(wildcardMatches("a*b*c", "a-b-b-c"));
    assert.ok(!wildcardMatches("a*b*c", "a-c"));
    assert.ok(!wildcardMatches("ab*ba", "aba"), "the head and tail may not overlap");
    assert.ok(wildcardMatches("exact", "exact"));
    assert.ok(!wildcardMatches("exact", "exactly"));
  });

  it("grant configure, write and read per vhost and name, and tags", () => {
    const g = new ScopeGrants("rabbitmq", [
      "rabbitmq.configure:%2F/orders-*",
      "rabbitmq.write:prod/*",
      "rabbitmq.read:*/logs",
      "rabbitmq.tag:administrator",
      "rabbitmq.tag:monitoring",
      "other.configure:*/*",
      "openid",
    ]);
    assert.deepEqual(g.tags, ["administrator", "monitoring"]);
    assert.ok(g.allows("/", "configure", "orders-1"));
    assert.ok(!g.allows("/", "configure", "invoices"));
    assert.ok(!g.allows("prod", "configure", "orders-1"), "another resource server's scope grants nothing");
    assert.ok(g.allows("prod", "write", "anything"));
    assert.ok(!g.allows("/", "write", "anything"));
    assert.ok(g.allows("any-vhost", "read", "logs"));
    assert.ok(!g.allows("any-vhost", "read", "logs2"));
    assert.ok(g.hasVhostAccess("/") && g.hasVhostAccess("prod") && g.hasVhostAccess("x"));
  });

  it("read a missing name pattern as every name, and the scope claim as a string or a list", () => {
    const g = new ScopeGrants("rs", scopesOf("rs.read:dev  rs.write:dev/q"));
    assert.ok(g.allows("dev", "read", "anything"));
    assert.ok(!g.hasVhostAccess("prod"));
    assert.deepEqual(scopesOf(["a", 1, "b"]), ["a", "b"]);
    assert.deepEqual(scopesOf(undefined), []);
  });

  it("read a third part as the routing-key pattern of topic authorisation; without one, any key", () => {
    const g = new ScopeGrants("rabbitmq", ["rabbitmq.write:prod/amq.topic/eu.*", "rabbitmq.read:prod/*"]);
    assert.ok(g.allows("prod", "write", "amq.topic"), "the exchange name is the second part only");
    assert.ok(g.allowsTopic("prod", "amq.topic", "write", "eu.orders"));
    assert.ok(!g.allowsTopic("prod", "amq.topic", "write", "us.orders"));
    assert.ok(g.allowsTopic("prod", "amq.topic", "read", "any.key"), "a scope without a key part allows every key");
    const plain = new ScopeGrants("rabbitmq", ["rabbitmq.write:*/*"]);
    assert.ok(plain.allowsTopic("v", "x", "write", "k"));
  });
});
