export default async function globalTeardown() {
  await globalThis.coneyBroker.close();
}
