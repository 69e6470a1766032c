// Lint rules: typescript-eslint's recommended set, plus the architecture rule that the
// domain core (src/broker, src/auth) never imports a transport.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coney-data/**", "test-output/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/broker/**/*.ts", "src/auth/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          // The codec's data model (field tables, message properties) is shared vocabulary;
          // connections, channels, listeners and HTTP are transports the domain must not know.
          { group: ["**/amqp/connection/**", "**/amqp/channel/**", "**/amqp/amqp-listener*", "**/http/**", "**/cli/**"], message: "The domain core knows no transport." },
          { group: ["node:net", "node:http", "node:https", "node:tls", "fastify"], message: "The domain core knows no transport." },
        ],
      }],
    },
  },
  {
    files: ["scripts/**/*.mjs", "bin/**/*.js", "bench/**/*.mjs", "src/ui/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
);
