/** Coney's programmatic API: embed the broker in a Node process. */
export { startBroker, type RunningBroker, type StartOptions } from "./start-broker.js";
export { defaultConfig, type ConeyConfig } from "./config/config.js";
export { Broker } from "./broker/index.js";
