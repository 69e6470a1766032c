// A client's connection.close is answered with close-ok and the CLIENT closes the socket, as with
// RabbitMQ 3.10 (close-ok "tells the recipient that it is safe to … close the socket"). Coney used
// to end the socket right after close-ok: amqplib sends connection.close ahead of publishes its
// channel had buffered, so its last writes failed with EPIPE behind a TCP proxy and its close
// callback never ran (found running amqplib's own suite through a proxy in front of a spread
// cluster and of `--workers 2`). Frames after close are read and dropped; a client that keeps the
// socket open is cut off after a few seconds.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MethodId } from "../../src/amqp/codec/generated.js";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { WireClient } from "../helpers/wire-client.js";

describe("connection.close from the client", () => {
  const f = useBrokerWithConnection();

  const closeFromClient = async (): Promise<{ c: WireClient; ended: () => boolean }> => {
    const c = await WireClient.connect(f.broker.amqpPort);
    let ended = false;
    c.socket.on("end", () => (ended = true));
    await c.handshake();
    c.send(1, { id: MethodId.ChannelOpen, name: "channel.open", args: { outOfBand: "" } });
    assert.equal((await c.nextMethod()).method.id, MethodId.ChannelOpenOk);
    c.send(0, { id: MethodId.ConnectionClose, name: "connection.close", args: { replyCode: 200, replyText: "bye", classId: 0, methodId: 0 } });
    // What amqplib does: frames its channel had buffered follow the close.
    c.send(1, { id: MethodId.BasicQos, name: "basic.qos", args: { prefetchSize: 0, prefetchCount: 5, global: false } });
    assert.equal((await c.nextMethod()).method.id, MethodId.ConnectionCloseOk);
    return { c, ended: () => ended };
  };

  it("leaves the socket to the client after close-ok, dropping what it still sends", async () => {
    const { c, ended } = await closeFromClient();
    c.send(1, { id: MethodId.BasicQos, name: "basic.qos", args: { prefetchSize: 0, prefetchCount: 6, global: false } });
    // Round trips on another connection: the broker ran past this one's close-ok meanwhile (one
    // event loop), so a FIN sent with close-ok would have arrived by now.
    await (await f.conn.createChannel()).checkExchange("amq.direct");
    await (await f.conn.createChannel()).checkExchange("amq.fanout");
    assert.equal(ended(), false, "the broker did not end the socket after close-ok");
    assert.equal(c.closed, false);
    c.socket.end();
    await c.waitClosed(5000);
    // The broker serves others as before.
    await (await f.conn.createChannel()).checkExchange("amq.topic");
  });

  it("cuts off a client that keeps the socket open after close-ok", async () => {
    const { c } = await closeFromClient();
    await c.waitClosed(10_000);
  });
});
