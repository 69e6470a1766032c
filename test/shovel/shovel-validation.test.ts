// Invalid shovel definitions are refused with RabbitMQ 3.10's reasons (recorded from a real
// RabbitMQ 3.10.8 with rabbitmq_shovel: the same texts in the same order), and nothing is stored.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

const CASES: [unknown, string][] = [
  [{}, "Must specify 'src-exchange' or 'src-queue'\nKey \"dest-uri\" not found in bad\nKey \"src-uri\" not found in bad\n"],
  [
    { "src-uri": "amqp://h:70000", "src-queue": "a", "src-exchange": "b", "dest-uri": 5, "ack-mode": "x", foo: 1, "reconnect-delay": "1" },
    'Cannot specify \'src-exchange\' and \'src-queue\'\nUnrecognised terms [{<<"foo">>,1}] in bad\ndest-uri should be list, actually was 5\n"amqp://h:70000" not a valid URI: {{port_out_of_range,70000},"amqp://h:70000"}\nack-mode should be one of [<<"no-ack">>,<<"on-publish">>,<<"on-confirm">>], actually was <<"x">>\nreconnect-delay should be a number, actually was <<"1">>\n',
  ],
  [
    { "src-uri": "http://x", "src-queue": "a", "dest-uri": ["amqp://", 3], "src-delete-after": 1, "ack-mode": "no-ack", "dest-publish-properties": { bogus: 1, priority: "x" } },
    'Cannot specify \'no-ack\' and numerical \'delete-after\'\nUnrecognised terms [{<<"bogus">>,1}] in dest-publish-properties\npriority should be a number, actually was <<"x">>\ndest-uri should be list, actually was 3\n"http://x" not a valid URI: {{unexpected_uri_scheme,"http"},"http://x"}\n',
  ],
  [
    { "src-uri": "amqp://", "src-queue": "a", "dest-uri": "amqp://", "src-delete-after": "x", "dest-queue": 5, "dest-add-forward-headers": "y" },
    'dest-add-forward-headers should be boolean, actually was <<"y">>\ndest-queue should be binary, actually was 5\nsrc-delete-after should be a number greater than or equal to 0, "never" or "queue-length", actually was <<"x">>\n',
  ],
  [{ "src-uri": "amqp:///nov", "src-queue": "a", "dest-uri": "amqp://" }, 'user "guest" may not connect to vhost "nov"\n'],
  // Unknown queue/consumer arguments: RabbitMQ 3.10 fails on these with an empty 500; Coney names them.
  [
    { "src-uri": "amqp://", "src-queue": "a", "dest-uri": "amqp://", "src-queue-args": { "x-foo": 1, "x-max-length": 10 }, "src-consumer-args": { "x-bar": true }, "dest-queue-args": 5 },
    'dest-queue-args not a list 5\nUnrecognised terms [{<<"x-bar">>,true}] in src-consumer-args\nUnrecognised terms [{<<"x-foo">>,1}] in src-queue-args\n',
  ],
  // Coney's own refusal: shovels speak AMQP 0-9-1 only.
  [{ "src-uri": "amqp://", "src-address": "a", "dest-uri": "amqp://", "src-protocol": "amqp10" }, "src-protocol amqp10 is not supported by Coney: shovels move messages over AMQP 0-9-1 only (amqp091)\n"],
];

describe("shovel definitions refused", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(() => broker.close());

  for (const [value, reason] of CASES) {
    it(`refuses ${JSON.stringify(value).slice(0, 70)}`, async () => {
      const r = await api("PUT", "/api/parameters/shovel/%2f/bad", { value });
      assert.equal(r.status, 400);
      assert.deepEqual(r.json, { error: "bad_request", reason: `Validation failed\n\n${reason}` });
      assert.equal((await api("GET", "/api/parameters/shovel/%2f/bad")).status, 404);
      assert.equal(broker.shovels.has("/", "bad"), false);
    });
  }

  it("refuses a shovel in a definitions import before applying anything", async () => {
    const r = await api("POST", "/api/definitions", { vhosts: [{ name: "imported" }], parameters: [{ vhost: "imported", component: "shovel", name: "s", value: { "src-uri": "amqp://" } }] });
    assert.equal(r.status, 400);
    assert.match(r.json.reason, /Must specify 'src-exchange' or 'src-queue'/);
    assert.equal((await api("GET", "/api/vhosts/imported")).status, 404);
  });
});
