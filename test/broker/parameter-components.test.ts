// The registry of runtime-parameter components: a feature's component validates with
// RabbitMQ's texts and hears set (only when the value changed) and cleared, from the API's
// operations, from a definitions import, and when its vhost is deleted.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Broker, exportDefinitions, importDefinitions, type ParameterComponent } from "../../src/broker/index.js";
import { BrokerError } from "../../src/errors/broker-error.js";

function recordingComponent(): { component: ParameterComponent; heard: string[] } {
  const heard: string[] = [];
  return {
    heard,
    component: {
      component: "demo",
      validate: (_vhost, _name, value, user) => (typeof value === "number" ? [] : [`value should be a number (asked by ${user ?? "none"})`]),
      set: (vhost, name, value) => heard.push(`set ${vhost}/${name}=${String(value)}`),
      cleared: (vhost, name) => heard.push(`cleared ${vhost}/${name}`),
    },
  };
}

describe("runtime-parameter components", () => {
  it("refuses a component nobody registered, and accepts it once registered", () => {
    const broker = new Broker();
    broker.putVhost("v", {});
    assert.throws(() => broker.putParameter("demo", "v", "a", 1), (e: unknown) => e instanceof BrokerError && e.message === "Validation failed\n\ncomponent demo not found\n");
    const { component } = recordingComponent();
    const unregister = broker.parameterComponents.register(component);
    assert.equal(broker.putParameter("demo", "v", "a", 1), true);
    unregister();
    assert.throws(() => broker.putParameter("demo", "v", "b", 1), /component demo not found/);
  });

  it("validates with the component's texts and the acting user", () => {
    const broker = new Broker();
    broker.putVhost("v", {});
    broker.parameterComponents.register(recordingComponent().component);
    assert.throws(
      () => broker.putParameter("demo", "v", "a", "x", { user: "alice", authMethod: "basic", source: "http", peer: "" }),
      (e: unknown) => e instanceof BrokerError && e.message === "Validation failed\n\nvalue should be a number (asked by alice)\n",
    );
    assert.equal(broker.vhost("v").parameters.get("demo")?.has("a") ?? false, false);
  });

  it("notifies set when the value changes, cleared on delete and on vhost deletion", () => {
    const broker = new Broker();
    broker.putVhost("v", {});
    const { component, heard } = recordingComponent();
    broker.parameterComponents.register(component);
    broker.putParameter("demo", "v", "a", 1);
    broker.putParameter("demo", "v", "a", 1);
    broker.putParameter("demo", "v", "a", 2);
    broker.putParameter("demo", "v", "b", 3);
    broker.deleteParameter("demo", "v", "a");
    broker.deleteVhost("v");
    assert.deepEqual(heard, ["set v/a=1", "set v/a=2", "set v/b=3", "cleared v/a", "cleared v/b"]);
  });

  it("a definitions import (as at boot) validates before applying and notifies each parameter", () => {
    const source = new Broker();
    source.putVhost("v", {});
    source.parameterComponents.register(recordingComponent().component);
    source.putParameter("demo", "v", "a", 7);
    const defs = exportDefinitions(source, { durableOnly: true, version: "test" });
    const target = new Broker();
    assert.throws(() => importDefinitions(target, defs), /component demo not found/);
    assert.equal(target.vhosts.has("v"), false, "nothing applied when a parameter is refused");
    const { component, heard } = recordingComponent();
    target.parameterComponents.register(component);
    importDefinitions(target, defs);
    assert.deepEqual(heard, ["set v/a=7"]);
  });

  it("a component that throws when told does not undo the stored change", () => {
    const broker = new Broker();
    broker.putVhost("v", {});
    const failures: string[] = [];
    broker.parameterComponents.onNotifyError = (c) => failures.push(c);
    broker.parameterComponents.register({ component: "demo", validate: () => [], set: () => { throw new Error("boom"); } });
    broker.putParameter("demo", "v", "a", 1);
    assert.equal(broker.vhost("v").parameters.get("demo")?.get("a"), 1);
    assert.deepEqual(failures, ["demo"]);
  });
});
