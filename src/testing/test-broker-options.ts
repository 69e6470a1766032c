/** What `startTestBroker` accepts: which listeners to open, who logs in, how much it prints. */
import type { LogLevel } from "../logging/logger.js";
import type { StartOptions } from "../start-broker.js";

export interface TestBrokerOptions {
  /** Open the management HTTP API on an ephemeral port (default: off). */
  readonly http?: boolean;
  /** Open MQTT (TCP) on an ephemeral port (default: off). */
  readonly mqtt?: boolean;
  /** Open MQTT over WebSocket on an ephemeral port (default: off). */
  readonly webMqtt?: boolean;
  /** Open STOMP (TCP) on an ephemeral port (default: off). */
  readonly stomp?: boolean;
  /** Open STOMP over WebSocket (Web STOMP, path /ws) on an ephemeral port (default: off). */
  readonly webStomp?: boolean;
  /** Open the native stream protocol on an ephemeral port (default: off). */
  readonly stream?: boolean;
  /** Open the Prometheus endpoint on an ephemeral port (default: off). */
  readonly prometheus?: boolean;
  /**
   * Who the default user is: guest/guest (the default, an administrator with full permissions on
   * the default vhost), a given name and password, or "random" for a fresh name and password
   * (read them back from `username` / `password` or the URLs).
   */
  readonly user?: { readonly username: string; readonly password: string } | "random";
  /** The default vhost (default "/"). */
  readonly vhost?: string;
  /** Nothing is printed unless asked (default "silent"). */
  readonly logLevel?: LogLevel | "silent";
  /** Anything else `startBroker` takes (limits, heartbeat, OAuth, …); listeners and storage are fixed above. */
  readonly broker?: Omit<StartOptions, "inMemory" | "dataDir" | "amqpPort" | "httpPort" | "prometheusPort" | "mqttPort" | "mqttsPort" | "webMqttPort" | "streamPort" | "streamTlsPort" | "stompPort" | "stompsPort" | "webStompPort" | "bind">;
}
