// A protocol's side listeners from its ports (src/listeners/protocol-listeners.ts): a port turned
// off or a TLS port without the node's certificate is not listened on; a bound TLS listener notes
// its certificate for the expiry check once, and every bind is logged with its port.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { protocolListeners, type ProtocolPort } from "../../src/listeners/protocol-listeners.js";
import type { ListenerCertificate } from "../../src/tls/certificate-expiry.js";
import { createLogger, type Logger } from "../../src/logging/logger.js";

/** A real logger whose JSON lines are kept as "msg {port, bind}". */
function recordingLogger(lines: string[]): Logger {
  return createLogger("info", (line) => {
    const o = JSON.parse(line) as { msg: string; port: number; bind: string };
    lines.push(`${o.msg} ${JSON.stringify({ port: o.port, bind: o.bind })}`);
  });
}

const opened: Array<{ port: number; tls: boolean }> = [];
const port = (protocol: string, label: string, p: number | null, tls: boolean): ProtocolPort => ({
  protocol,
  label,
  port: p,
  tls,
  open: async (at, options) => {
    opened.push({ port: at, tls: options !== null });
    return { port: at === 0 ? 50000 : at, close: async () => undefined };
  },
});

describe("protocol listeners", () => {
  const ports = [port("mqtt", "MQTT", 1883, false), port("mqtt/ssl", "MQTTS", 8883, true), port("http/web-mqtt", "Web MQTT", null, false)];

  it("without a certificate: only the plain ports that are on", () => {
    const specs = protocolListeners(ports, { bind: "", logger: recordingLogger([]), tls: null, certificates: [] });
    assert.deepEqual(specs.map((s) => [s.protocol, s.port]), [["mqtt", 1883]]);
  });

  it("with one: the TLS port opens with the node's options, notes its certificate once and logs each bind", async () => {
    const lines: string[] = [];
    const certificates: ListenerCertificate[] = [];
    const tls = { options: { cert: "x" }, certFile: "/etc/coney/cert.pem" };
    const specs = protocolListeners(ports, { bind: "127.0.0.1", logger: recordingLogger(lines), tls, certificates });
    assert.deepEqual(specs.map((s) => s.protocol), ["mqtt", "mqtt/ssl"]);
    opened.length = 0;
    for (const s of specs) {
      const l = await s.open();
      s.opened?.(l);
      s.opened?.(l); // a retry that binds again
    }
    assert.deepEqual(opened, [{ port: 1883, tls: false }, { port: 8883, tls: true }]);
    assert.deepEqual(certificates, [{ protocol: "mqtt/ssl", port: 8883, file: "/etc/coney/cert.pem" }]);
    assert.deepEqual(lines, [
      'MQTT listener started {"port":1883,"bind":"127.0.0.1"}',
      'MQTT listener started {"port":1883,"bind":"127.0.0.1"}',
      'MQTTS listener started {"port":8883,"bind":"127.0.0.1"}',
      'MQTTS listener started {"port":8883,"bind":"127.0.0.1"}',
    ]);
  });
});
