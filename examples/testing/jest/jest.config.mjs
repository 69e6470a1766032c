// Jest runs ESM tests with `node --experimental-vm-modules node_modules/jest/bin/jest.js`.
export default {
  testEnvironment: "node",
  transform: {},
  testMatch: ["**/*.test.mjs"],
  globalSetup: "./global-setup.mjs",
  globalTeardown: "./global-teardown.mjs",
};
