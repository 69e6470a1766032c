/** What this broker calls itself: in AMQP's server properties, /api/overview, definitions exports and metrics. */
export const PRODUCT = "Coney";
export const VERSION = "0.1.0";
