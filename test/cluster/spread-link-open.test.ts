// A spread cluster's node link to a node that never answers (docs/CLUSTERING.md, "On machines of
// their own: network namespaces"): on a real partition the packets are dropped, nothing is
// refused, and an attempt without a bound waited minutes while the node retried nobody else — not
// the adopter serving the cut node's store at another address. A real TCP server that accepts and
// stays silent (as a node whose link handshake never comes back) stands for it on loopback: the
// attempt must fail within its bound, its socket closed, so the next tick can reach elsewhere.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { replicationTransport } from "../../src/cluster/replication-transport.js";
import { connectSpreadLink } from "../../src/cluster/spread-links.js";

describe("spread link opening", () => {
  it("gives up on a node that accepts the connection and never answers the handshake, and closes its socket", async () => {
    const accepted: Socket[] = [];
    const closed: Array<Promise<void>> = [];
    const server: Server = createServer((s) => {
      accepted.push(s);
      closed.push(new Promise((resolve) => s.once("close", () => resolve())));
      s.on("error", () => undefined);
      s.resume(); // read (and drop) what comes, so its end is seen
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const transport = replicationTransport({ clusterTls: false, tlsCert: null, tlsKey: null, tlsCa: null });
      const started = performance.now();
      await assert.rejects(connectSpreadLink(transport, "127.0.0.1", port, { secret: randomBytes(32), node: "asker@test" }, 300), /not open within 300 ms/);
      const took = performance.now() - started;
      assert.ok(took >= 290, `not given up before its bound (${Math.round(took)} ms)`);
      assert.equal(accepted.length, 1, "the attempt reached the silent node");
      // The abandoned attempt's socket is closed (the silent side sees the close), not left open.
      await Promise.all(closed);
    } finally {
      for (const s of accepted) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
