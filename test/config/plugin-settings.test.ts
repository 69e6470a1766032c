// The settings added with the plugin exchanges (issue 27): consumer_timeout and the management
// UI's OAuth 2.0 login under RabbitMQ's older names (management.enable_uaa, uaa_client_id,
// uaa_location) and 3.10's, read from rabbitmq.conf and flags, and what /api/auth then answers.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readRabbitConf } from "../../src/config/rabbitmq-conf.js";
import { loadConfig } from "../../src/config/load-config.js";
import { defaultConfig } from "../../src/config/config.js";
import { authSettings } from "../../src/http/routes/auth.js";
import { startTestBroker } from "../helpers/broker.js";

const read = (text: string) => readRabbitConf(text, { loopbackUsers: ["guest"] });

describe("consumer_timeout and the management OAuth switch", () => {
  it("reads consumer_timeout (ms, or false for none) from rabbitmq.conf and --consumer-timeout", () => {
    assert.equal(defaultConfig().consumerTimeout, 1_800_000, "RabbitMQ's default: 30 minutes");
    assert.equal(read("consumer_timeout = 900000").settings.consumerTimeout, 900000);
    assert.equal(read("consumer_timeout = false").settings.consumerTimeout, 0);
    assert.equal(loadConfig(["--consumer-timeout", "5000"], {}).consumerTimeout, 5000);
  });

  it("maps management.enable_uaa, uaa_client_id and uaa_location onto the management OAuth settings, as the 3.10 names do", () => {
    const old = read("management.enable_uaa = true\nmanagement.uaa_client_id = rabbit_ui\nmanagement.uaa_location = https://idp.example/uaa").settings;
    const current = read("management.oauth_enabled = true\nmanagement.oauth_client_id = rabbit_ui\nmanagement.oauth_provider_url = https://idp.example/uaa").settings;
    assert.deepEqual(old, { managementOauthEnabled: true, managementOauthClientId: "rabbit_ui", managementOauthProviderUrl: "https://idp.example/uaa" });
    assert.deepEqual(current, old);
  });

  it("reports OAuth login on only when it is complete, with the resource server the API's tokens name", () => {
    const base = { ...defaultConfig(), managementOauthEnabled: true, managementOauthClientId: "rabbit_ui", managementOauthProviderUrl: "https://idp.example/uaa" };
    assert.deepEqual(authSettings(base), { enable_uaa: false, uaa_client_id: "", uaa_location: "", oauth_enabled: false }, "no resource server: off, as RabbitMQ");
    assert.deepEqual(authSettings({ ...base, oauthResourceServerId: "rabbitmq" }), {
      enable_uaa: true,
      uaa_client_id: "rabbit_ui",
      uaa_location: "https://idp.example/uaa",
      oauth_enabled: true,
      oauth_client_id: "rabbit_ui",
      oauth_provider_url: "https://idp.example/uaa",
      oauth_resource_id: "rabbitmq",
    });
    assert.equal(authSettings({ ...base, oauthResourceServerId: "rabbitmq", managementOauthClientId: "" }).enable_uaa, false, "no client id: off");
  });

  it("answers GET /api/auth from the running broker's settings", async () => {
    const broker = await startTestBroker({ managementOauthEnabled: true, managementOauthClientId: "ui", managementOauthProviderUrl: "https://idp.example", oauthResourceServerId: "rabbitmq", oauthHmacSecrets: ["k=secret"] });
    try {
      const r = await fetch(`${broker.httpUrl}/api/auth`);
      assert.equal(r.status, 200);
      const body = (await r.json()) as Record<string, unknown>;
      assert.equal(body["enable_uaa"], true);
      assert.equal(body["uaa_location"], "https://idp.example");
      assert.equal(body["oauth_resource_id"], "rabbitmq");
    } finally {
      await broker.close();
    }
  });
});
