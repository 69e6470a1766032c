// A spread cluster whose nodes each bind and advertise an address of their own (127.0.0.1, .2, .3:
// on loopback what a node per network namespace showed, docs/CLUSTERING.md "On machines of their
// own: network namespaces"). Every node's /api/overview lists each node's listeners at that node's
// address, not at the asking node's `--bind`, and /api/nodes gives every node its web contexts at
// its own address, as RabbitMQ's management API lists each node's.
import { describe } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../helpers/wait.js";
import { spreadCluster } from "./spread-fixture.js";

interface Listener { readonly node: string; readonly protocol: string; readonly ip_address: string; readonly port: number }
interface NodeEntry { readonly name: string; readonly running: boolean; readonly contexts?: ReadonlyArray<{ readonly description: string; readonly ip?: string; readonly port: string }> }

describe("spread cluster: nodes on addresses of their own", { timeout: 90_000 }, () => {
  const sc = spreadCluster({ protocols: false, ownAddresses: true });
  const addressOf = (i: number): string => `127.0.0.${i + 1}`;

  sc.it("every node's /api/overview and /api/nodes name each node's own address", async () => {
    for (let asked = 0; asked < 3; asked++) {
      // Wait for the state read: every node running, as this node sees them.
      let nodes: NodeEntry[] = [];
      await eventually(async () => {
        nodes = (await sc.api(asked, "GET", "/api/nodes")).json as NodeEntry[];
        return nodes.filter((n) => n.running && (n.contexts ?? []).length > 0).length === 3;
      }, 30_000, `node${asked} to list three running nodes with their contexts`);
      const overview = (await sc.api(asked, "GET", "/api/overview")).json as { listeners: Listener[] };
      for (let i = 0; i < 3; i++) {
        const n = sc.node(i);
        const amqp = overview.listeners.find((l) => l.node === n.name && l.protocol === "amqp");
        assert.equal(amqp?.ip_address, addressOf(i), `node${asked}'s overview lists ${n.name}'s AMQP listener at its own address`);
        assert.equal(amqp?.port, n.amqpPort);
        const http = nodes.find((x) => x.name === n.name)?.contexts?.find((c) => c.description === "Coney Management");
        assert.equal(http?.ip, addressOf(i), `node${asked}'s /api/nodes gives ${n.name} its management context at its own address`);
        assert.equal(http?.port, String(n.httpPort));
      }
    }
  });
});
