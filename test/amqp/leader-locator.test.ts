// x-queue-leader-locator and the queue-leader-locator policy key, validated as RabbitMQ 3.10.8
// answers them (recorded by hand against it): client-local and balanced, and the deprecated
// random and least-leaders (read as balanced, src/broker/queue/placement.ts), are taken; any other
// value is refused with RabbitMQ's texts. A classic queue refuses the argument whatever its value.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { apiClient } from "../helpers/http-client.js";
import { withTimeout } from "../helpers/wait.js";

describe("queue leader locator: argument and policy key", () => {
  const f = useBrokerWithConnection();
  const api = apiClient(() => f.broker.httpUrl);

  /** Declares on a throwaway channel and returns the server's close text ("" when it worked). */
  const declareError = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const ch = await f.conn.createChannel();
    const closed = new Promise<string>((resolve) => ch.on("error", (e: Error) => resolve(e.message)));
    try {
      await ch.assertQueue(name, { durable: true, arguments: args });
      await ch.deleteQueue(name);
      await ch.close();
      return "";
    } catch {
      return withTimeout(closed, 2000, "channel error");
    }
  };

  it("takes client-local, balanced, random and least-leaders on quorum queues and streams", async () => {
    for (const type of ["quorum", "stream"]) {
      for (const v of ["client-local", "balanced", "random", "least-leaders"]) {
        assert.equal(await declareError(`loc.${type}.${v}`, { "x-queue-type": type, "x-queue-leader-locator": v }), "", `${type} ${v}`);
      }
    }
  });

  it("refuses another value, a non-string, and the argument on a classic queue, with RabbitMQ's texts", async () => {
    assert.match(await declareError("loc.bad", { "x-queue-type": "quorum", "x-queue-leader-locator": "min-masters" }), /^Channel closed by server: 406 \(PRECONDITION-FAILED\) with message "PRECONDITION_FAILED - invalid arg 'x-queue-leader-locator' for queue 'loc.bad' in vhost '\/': invalid_queue_locator_arg"$/);
    // RabbitMQ names the wire type (amqplib sends 5 as a byte: "byte"); Coney's decoded tables keep
    // only the number, so it names the type from the value (field-value.ts fieldTypeName).
    assert.match(await declareError("loc.int", { "x-queue-type": "quorum", "x-queue-leader-locator": 5 }), /invalid arg 'x-queue-leader-locator' for queue 'loc.int' in vhost '\/': \{unacceptable_type,\w+\}"$/);
    assert.match(await declareError("loc.classic", { "x-queue-leader-locator": "random" }), /invalid arg 'x-queue-leader-locator' for queue 'loc.classic' in vhost '\/' of queue type rabbit_classic_queue"$/);
  });

  it("the policy key takes the same four values and refuses others with RabbitMQ's text", async () => {
    for (const v of ["client-local", "balanced", "random", "least-leaders"]) {
      const r = await api("PUT", "/api/policies/%2f/loc", { pattern: "^loc-none$", definition: { "queue-leader-locator": v } });
      assert.ok(r.status === 201 || r.status === 204, `${v}: ${r.status}`);
    }
    const bad = await api("PUT", "/api/policies/%2f/loc", { pattern: "^loc-none$", definition: { "queue-leader-locator": "nope" } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json, { error: "bad_request", reason: 'Validation failed\n\n<<"nope">> is not a valid queue leader locator value\n' });
    const number = await api("PUT", "/api/policies/%2f/loc", { pattern: "^loc-none$", definition: { "queue-leader-locator": 5 } });
    assert.deepEqual(number.json, { error: "bad_request", reason: "Validation failed\n\n5 is not a valid queue leader locator value\n" });
    assert.equal((await api("DELETE", "/api/policies/%2f/loc")).status, 204);
  });
});
