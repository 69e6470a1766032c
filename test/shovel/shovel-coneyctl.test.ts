// coneyctl's shovel verbs against a real broker running a real shovel (its own queue to another
// of its queues): list_shovels / shovel_status, restart_shovel, delete_shovel, and their
// not-found errors.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { ctl } from "../cli/run-coneyctl.js";
import { waitForState } from "./shovel-helpers.js";

describe("coneyctl shovels", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
    await api("PUT", "/api/parameters/shovel/%2f/mover", { value: { "src-uri": "amqp://", "src-queue": "in", "dest-uri": "amqp://", "dest-queue": "out" } });
    await waitForState(api, "/", "mover", "running");
  });
  after(() => broker.close());

  it("list_shovels and shovel_status show the shovel's state, source and destination", async () => {
    const r = await ctl(broker, ["list_shovels", "name", "vhost", "state", "source", "destination", "src_queue", "dest_queue", "termination_reason"]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.replace(/\n$/, "").split("\n");
    assert.equal(lines.at(-2), "name\tvhost\tstate\tsource\tdestination\tsrc_queue\tdest_queue\ttermination_reason");
    assert.equal(lines.at(-1), "mover\t/\trunning\tamqp://\tamqp://\tin\tout\t");
    const status = await ctl(broker, ["shovel_status"]);
    assert.equal(status.code, 0);
    assert.match(status.stdout, /Shovel status/);
    assert.match(status.stdout, /\nname\tvhost\ttype\tstate\tsource\tdestination\ttermination_reason\tlast_changed\nmover\t\/\tdynamic\trunning\tamqp:\/\/\tamqp:\/\/\t\t\d{4}-/);
  });

  it("restart_shovel and delete_shovel; an unknown name is an error", async () => {
    const restart = await ctl(broker, ["restart_shovel", "mover"]);
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stdout, /Restarting dynamic Shovel mover in virtual host \//);
    await waitForState(api, "/", "mover", "running");
    const missing = await ctl(broker, ["delete_shovel", "-p", "/", "nope"]);
    assert.equal(missing.code, 70);
    assert.match(missing.stderr, /Shovel with the given name was not found/);
    const del = await ctl(broker, ["delete_shovel", "mover"]);
    assert.equal(del.code, 0, del.stderr);
    assert.match(del.stdout, /Deleting shovel mover in vhost \//);
    assert.equal((await api("GET", "/api/parameters/shovel/%2f/mover")).status, 404);
    assert.equal(broker.shovels.has("/", "mover"), false);
  });
});
