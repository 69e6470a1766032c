/**
 * A real broker in a child process with message-store tuning the CLI does not offer (small
 * segments, fast online compaction, small paging limits), for crash tests that need a segment
 * roll or a compaction to happen within a second. Usage: node store-child.js <json StartOptions>.
 * It logs like `coney` (the harness reads the listener port from stderr) and dies as bin/coney.js
 * would: crash tests kill it with SIGKILL or stop it at a fault point (CONEY_FAULT_POINT).
 */
import { startBroker, type StartOptions } from "../../src/start-broker.js";

const options = JSON.parse(process.argv[2] ?? "{}") as StartOptions;
await startBroker({ amqpPort: 0, httpPort: null, prometheusPort: null, mqttPort: null, webMqttPort: null, stompPort: null, webStompPort: null, streamPort: null, streamTlsPort: null, bind: "127.0.0.1", logLevel: "info", diskFreeLimit: 0, ...options });
