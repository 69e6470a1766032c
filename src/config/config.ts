/**
 * Broker configuration with RabbitMQ's defaults. Loaded by load-config.ts from flags,
 * environment variables and an optional JSON file (flags win, then env, then file).
 */
import { hostname } from "node:os";
import type { LogLevel } from "../logging/logger.js";

export interface ConeyConfig {
  /** AMQP 0-9-1 listener; 0 binds an ephemeral port. */
  amqpPort: number;
  /** Management HTTP API listener; 0 binds an ephemeral port, null disables it. */
  httpPort: number | null;
  /** Address to bind; "" binds every interface (IPv4 and IPv6). */
  bind: string;
  dataDir: string;
  defaultUser: string;
  defaultPass: string;
  defaultVhost: string;
  /** Users allowed to connect only from loopback addresses (RabbitMQ loopback_users). */
  loopbackUsers: string[];
  logLevel: LogLevel | "silent";
  heartbeat: number;
  frameMax: number;
  channelMax: number;
  maxMessageSize: number;
  handshakeTimeout: number;
  clusterName: string;
  /** A RabbitMQ definitions file imported at every boot (RabbitMQ's load_definitions). */
  loadDefinitions: string | null;
}

export function defaultConfig(): ConeyConfig {
  return {
    amqpPort: 5672,
    httpPort: 15672,
    bind: "",
    dataDir: "./coney-data",
    defaultUser: "guest",
    defaultPass: "guest",
    defaultVhost: "/",
    loopbackUsers: ["guest"],
    logLevel: "info",
    heartbeat: 60,
    frameMax: 131072,
    channelMax: 2047,
    maxMessageSize: 128 * 1024 * 1024,
    handshakeTimeout: 10,
    clusterName: `coney@${hostname()}`,
    loadDefinitions: null,
  };
}
