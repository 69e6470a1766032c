// Lint rules: typescript-eslint's recommended set, small files in src/ (docs/ARCHITECTURE.md),
// plus the architecture rule that the domain core (src/broker, src/auth) never imports a
// transport. The import graph's rules (no cycles, floors) are dependency-cruiser's:
// .dependency-cruiser.cjs, run by `npm run lint` after ESLint.
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
    // One concept per file: a file past 400 lines holds several. The generated codec is one table.
    files: ["src/**/*.ts"],
    ignores: ["src/amqp/codec/generated.ts"],
    rules: { "max-lines": ["error", { max: 400 }] },
  },
  {
    files: ["src/broker/**/*.ts", "src/auth/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          // Field values and message properties are the domain's own (src/broker/values); every
          // protocol, its codec included, is a transport the domain must not know. (The full
          // layering is .dependency-cruiser.cjs; this rule shows the mistake in an editor.)
          { group: ["**/amqp/**", "**/mqtt/**", "**/stream/**", "**/http/**", "**/cli/**", "**/cluster/**", "**/store/**"], message: "The domain core knows no transport." },
          { group: ["node:net", "node:http", "node:https", "node:tls", "fastify"], message: "The domain core knows no transport." },
        ],
      }],
    },
  },
  {
    files: ["scripts/**/*.mjs", "bin/**/*.js", "bench/**/*.mjs", "src/ui/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
  {
    // The test-runner recipes (examples/testing): Node's globals, and Mocha's BDD globals in its folder.
    files: ["examples/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly", globalThis: "readonly" } },
  },
  {
    files: ["examples/testing/mocha/*.mjs"],
    languageOptions: { globals: { describe: "readonly", it: "readonly", before: "readonly", after: "readonly", beforeEach: "readonly", afterEach: "readonly" } },
  },
  {
    files: [".dependency-cruiser.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable" } },
  },
);
