/** The SASL mechanisms the broker accepts (offered in connection.start and shown by /api/nodes as auth_mechanisms). */
export const SASL_MECHANISMS = ["PLAIN", "AMQPLAIN"] as const;
