/**
 * Architecture rules, enforced by `npm run lint` (see docs/ARCHITECTURE.md for the floors).
 * A broken rule fails CI.
 */
const TRANSPORTS_AND_OUTER = "^src/(amqp|amqp1|http|cluster|cli|ui|metrics|mqtt|stomp|stream|links|node-link|shovel|federation|bench|config|tls|start-broker|main|index|workers)";

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "Import cycles hide which module owns what; share a type from the lower module or pass a callback instead.",
      from: { path: "^src" },
      to: { circular: true },
    },
    {
      name: "domain-knows-no-transport",
      severity: "error",
      comment: "src/broker is the protocol-neutral domain: it imports only itself, the logging and error catalogue floors, and Node's non-network built-ins.",
      from: { path: "^src/broker" },
      to: { path: [TRANSPORTS_AND_OUTER, "^src/store"] },
    },
    {
      name: "domain-no-network",
      severity: "error",
      comment: "The domain opens no sockets: listeners belong to transports.",
      from: { path: "^src/(broker|auth)" },
      to: { dependencyTypes: ["core"], path: "^(node:)?(net|http|https|tls|dgram|http2)$" },
    },
    {
      name: "auth-knows-no-transport",
      severity: "error",
      from: { path: "^src/auth" },
      to: { path: [TRANSPORTS_AND_OUTER, "^src/store"] },
    },
    {
      name: "store-below-transports",
      severity: "error",
      comment: "The store implements the domain's journal ports; it may use the AMQP codec's pure property encoding (its on-disk form) but no transport.",
      from: { path: "^src/store" },
      to: { path: ["^src/amqp/(connection|channel)", "^src/amqp/amqp-listener", "^src/(http|cluster|cli|ui|metrics|mqtt|stomp|stream|links|node-link|shovel|federation|bench)"] },
    },
    {
      name: "domain-through-its-public-face",
      severity: "error",
      comment: "Outside src/broker, the domain is reached through src/broker/index.ts (its operations and contracts) and src/broker/values/ (its value types), never its rooms.",
      from: { path: "^src/", pathNot: "^src/broker/" },
      to: { path: "^src/broker/", pathNot: ["^src/broker/index\\.ts$", "^src/broker/values/"] },
    },
    {
      name: "transports-do-not-know-each-other",
      severity: "error",
      comment: "A protocol's connections and channels are its own: the API, metrics, the cluster and other protocols see connections through the domain's connection registry.",
      from: { path: "^src/(http|metrics|cluster|store|mqtt|stomp|stream|links|node-link|shovel|federation|auth)" },
      to: { path: "^src/amqp/(connection|channel|amqp-listener)" },
    },
    {
      name: "amqp1-is-its-own-transport",
      severity: "error",
      comment: "AMQP 1.0 (src/amqp1) is reached by the AMQP listener only through the handover start-broker injects; the API and other protocols see its connections through the registry.",
      from: { path: "^src/(http|metrics|cluster|store|mqtt|stream|links|shovel|federation|auth|amqp/)" },
      to: { path: "^src/amqp1/" },
    },
    {
      name: "api-below-cluster",
      severity: "error",
      comment: "The cluster runs the broker and its API; the API sees the cluster only through the domain's ClusterView.",
      from: { path: "^src/(http|metrics|ui|broker|store|auth|amqp|node-link)" },
      to: { path: "^src/cluster" },
    },
    {
      name: "workers-on-top",
      severity: "error",
      comment: "src/workers (coney --workers N: the primary and its worker processes) runs brokers through start-broker.ts; only main.ts reaches it. The API sees the other workers through http/peer-nodes.ts's PeerNodes.",
      from: { path: "^src/", pathNot: ["^src/workers/", "^src/main\\.ts$"] },
      to: { path: "^src/workers/" },
    },
    {
      name: "links-below-shovel-and-federation",
      severity: "error",
      comment: "src/links is what shovels and federation share (URIs, endpoints, reconnecting); it knows neither of them, and they do not know each other.",
      from: { path: "^src/links" },
      to: { path: "^src/(shovel|federation|http|metrics|ui|cli|cluster|mqtt|amqp/(connection|channel))" },
    },
    {
      name: "shovel-and-federation-are-siblings",
      severity: "error",
      from: { path: "^src/(shovel|federation)" },
      to: { path: "^src/(shovel|federation)", pathNot: "^src/$1" },
    },
    {
      name: "codec-is-pure",
      severity: "error",
      comment: "The AMQP codec is a wire format library: it knows the domain's value types, nothing else.",
      from: { path: "^src/amqp/codec" },
      to: { path: "^src/", pathNot: ["^src/amqp/codec", "^src/broker/values"] },
    },
    {
      name: "amqp10-codec-is-pure",
      severity: "error",
      comment: "The AMQP 1.0 message format (stream messages) maps bytes to the domain's value types and back, nothing else.",
      from: { path: "^src/amqp10" },
      to: { path: "^src/", pathNot: ["^src/amqp10", "^src/broker/values"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src",
    exclude: { path: "^src/ui/app/vendor" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
