// AMQP URIs as RabbitMQ's links read them: local (no host), vhosts, credentials, the query
// options, and the error terms of URIs it refuses.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { displayUri, parseAmqpUri, UriError } from "../../src/links/amqp-uri.js";

describe("AMQP URIs", () => {
  it("a URI without a host is the local broker, in / unless a vhost is given", () => {
    assert.equal(parseAmqpUri("amqp://").local, true);
    assert.equal(parseAmqpUri("amqp://").vhost, "/");
    assert.equal(parseAmqpUri("amqp:///other").vhost, "other");
    assert.equal(parseAmqpUri("amqp:///%2f").vhost, "/");
    assert.equal(parseAmqpUri("amqp://").username, null);
  });

  it("reads host, port, credentials and vhost, defaults per scheme", () => {
    const u = parseAmqpUri("amqp://us%40er:p%3Ass@example.com:5673/v%2Fh");
    assert.deepEqual([u.local, u.host, u.port, u.username, u.password, u.vhost, u.tls], [false, "example.com", 5673, "us@er", "p:ss", "v/h", false]);
    assert.equal(parseAmqpUri("amqp://h").port, 5672);
    assert.equal(parseAmqpUri("amqps://h").port, 5671);
    assert.equal(parseAmqpUri("amqp://h").vhost, "/");
    assert.equal(u.display, "amqp://example.com:5673/v%2Fh");
  });

  it("reads RabbitMQ's query options", () => {
    const u = parseAmqpUri("amqps://h/?heartbeat=5&connection_timeout=2000&channel_max=8&cacertfile=/ca.pem&certfile=/c.pem&keyfile=/k.pem&verify=verify_peer&server_name_indication=other.example&auth_mechanism=plain");
    assert.deepEqual([u.heartbeat, u.connectionTimeout, u.channelMax], [5, 2000, 8]);
    assert.deepEqual(u.tlsOptions, { verify: "verify_peer", cacertfile: "/ca.pem", certfile: "/c.pem", keyfile: "/k.pem", serverNameIndication: "other.example" });
    assert.deepEqual(u.authMechanisms, ["plain"]);
    assert.equal(parseAmqpUri("amqps://h").tlsOptions?.verify, "verify_none");
    assert.equal(parseAmqpUri("amqp://h").heartbeat, 10);
  });

  it("refuses what RabbitMQ refuses, with its error terms", () => {
    const refused = (uri: string): string => {
      try {
        parseAmqpUri(uri);
      } catch (err) {
        assert.ok(err instanceof UriError);
        return err.term;
      }
      assert.fail(`${uri} was accepted`);
    };
    assert.equal(refused("http://h"), '{unexpected_uri_scheme,"http"}');
    assert.equal(refused("amqp://h:70000"), "{port_out_of_range,70000}");
    assert.equal(refused("amqp://h/a/b"), '{invalid_vhost,"a/b"}');
    assert.match(refused("amqp://h?heartbeat=x"), /^\{invalid_amqp_params_parameter,heartbeat,"x",.*\{not_an_integer,"x"\}\}$/);
    assert.equal(displayUri("amqp://user:secret@h:1/v"), "amqp://h:1/v");
  });
});
