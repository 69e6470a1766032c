// A shovel to its own node (amqp:// with no host) in the management API as RabbitMQ 3.10 lists it
// (recorded against it on 15672): two "Direct 0-9-1" connections named by the shovel
// (client_properties.connection_name "Shovel <name>", user "none"), one channel each, the source
// side's channel carrying the shovel's consumer — so /api/consumers, the source queue's
// consumer_details and object_totals.consumers agree (issue 47: every consumer listed). The
// channels count what passes; closing one from the API restarts the shovel; deleting the shovel
// removes them.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

interface Conn {
  name: string;
  protocol: string;
  user: string;
  channels: number;
  client_properties: { connection_name?: string };
}

describe("a local shovel's direct connections in the management API", () => {
  const f = useBrokerWithConnection();
  const api = apiClient(() => f.broker.httpUrl);
  const direct = async (): Promise<Conn[]> => ((await api("GET", "/api/connections")).json as Conn[]).filter((c) => c.protocol === "Direct 0-9-1");

  it("lists the shovel's connections, channels and consumer, counts its messages, and follows its life", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("direct-src");
    await ch.assertQueue("direct-dst");
    assert.ok((await api("PUT", "/api/parameters/shovel/%2F/mover", { value: { "src-uri": "amqp://", "src-queue": "direct-src", "dest-uri": "amqp://", "dest-queue": "direct-dst", "src-prefetch-count": 50 } })).status < 300);
    await eventually(async () => (await direct()).length === 2, 10_000, "two direct connections");
    const conns = await direct();
    for (const c of conns) {
      assert.deepEqual([c.user, c.channels, c.client_properties.connection_name], ["none", 1, "Shovel mover"]);
      assert.match(c.name, /^<.+\.direct\.[0-9a-f]+>$/);
    }
    // A direct connection holds no socket: the node's sockets are the client connections'.
    const clients = ((await api("GET", "/api/connections")).json as Conn[]).length - 2;
    assert.equal(((await api("GET", "/api/nodes")).json as Array<{ sockets_used: number }>)[0]!.sockets_used, clients);
    await eventually(async () => ((await api("GET", "/api/consumers")).json as unknown[]).length === 1, 10_000, "the shovel's consumer listed");
    const [consumer] = (await api("GET", "/api/consumers")).json as Array<{ queue: { name: string }; ack_required: boolean; prefetch_count: number; channel_details: { name: string; connection_name: string; user: string } }>;
    assert.equal(consumer!.queue.name, "direct-src");
    assert.deepEqual([consumer!.ack_required, consumer!.prefetch_count, consumer!.channel_details.user], [true, 50, "none"]);
    assert.equal(consumer!.channel_details.name, `${consumer!.channel_details.connection_name} (1)`);
    const src = (await api("GET", "/api/queues/%2F/direct-src")).json as { consumers: number; consumer_details: unknown[] };
    assert.deepEqual([src.consumers, src.consumer_details.length], [1, 1]);
    const totals = (await api("GET", "/api/overview")).json.object_totals as { consumers: number; channels: number; connections: number };
    assert.equal(totals.consumers, 1);
    assert.equal(totals.channels, ((await api("GET", "/api/channels")).json as unknown[]).length);

    // What passes is counted on the two channels: delivered and acked at the source, published at the destination.
    for (let i = 0; i < 3; i++) ch.sendToQueue("direct-src", Buffer.from(`m${i}`));
    await eventually(async () => (await api("GET", "/api/queues/%2F/direct-dst")).json.messages === 3, 10_000, "three messages moved");
    const statsOf = async () => {
      const chans = (await api("GET", "/api/channels")).json as Array<{ connection_details: { name: string }; message_stats: Record<string, number>; consumer_count: number }>;
      const mine = chans.filter((c) => conns.some((d) => d.name === c.connection_details.name));
      return { source: mine.find((c) => c.consumer_count === 1)?.message_stats, dest: mine.find((c) => c.consumer_count === 0)?.message_stats };
    };
    await eventually(async () => (await statsOf()).source?.["ack"] === 3, 10_000, "three acks counted");
    const s = await statsOf();
    assert.deepEqual([s.source!["deliver"], s.source!["ack"], s.dest!["publish"]], [3, 3, 3]);

    // Closed from the API: the shovel comes back on new direct connections.
    assert.equal((await api("DELETE", `/api/connections/${encodeURIComponent(consumer!.channel_details.connection_name)}`)).status, 204);
    await eventually(async () => {
      const now = await direct();
      return now.length === 2 && !now.some((c) => c.name === consumer!.channel_details.connection_name);
    }, 15_000, "the shovel reconnected");

    assert.equal((await api("DELETE", "/api/parameters/shovel/%2F/mover")).status, 204);
    await eventually(async () => (await direct()).length === 0, 10_000, "no direct connection once the shovel is gone");
    assert.equal((await api("GET", "/api/queues/%2F/direct-src")).json.consumers, 0);
    await ch.close();
  });
});
