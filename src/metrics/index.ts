/**
 * Prometheus metrics with RabbitMQ's names (rabbitmq_prometheus, port 15692): the one entry
 * point the composition root uses. See README, Prometheus metrics.
 */
export { listenMetrics, listenNodeMetrics, type MetricsListener, type MetricsListenerOptions } from "./metrics-listener.js";
export type { ClusterRole } from "./cluster-families.js";
export type { MetricsSource } from "./scrape-state.js";
export type { FederationLinkFigures } from "./federation-families.js";
