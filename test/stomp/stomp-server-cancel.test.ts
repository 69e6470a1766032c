// A subscription the server ends (its queue deleted, here through the management API): RabbitMQ
// 3.10.8's STOMP adapter sends ERROR `message:Server cancelled subscription` with a `subscription`
// header and keeps the connection open (recorded against it: the frame below is its frame). Before,
// Coney dropped the subscription silently: the client waited for messages that would never come.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useStompBroker } from "./stomp-fixture.js";

describe("STOMP: a subscription whose queue goes", () => {
  const f = useStompBroker();

  it("gets RabbitMQ's 'Server cancelled subscription' ERROR, and the connection stays open", async () => {
    const w = await f.login({ "accept-version": "1.2" });
    w.send("SUBSCRIBE", { id: "sub-7", destination: "/queue/cancel-me", receipt: "r1" });
    await w.nextOf("RECEIPT");
    // amqplib's queue.delete on the other side (as the management API's DELETE does).
    await f.ch.deleteQueue("cancel-me");
    const e = await w.nextOf("ERROR");
    assert.equal(e.headers["message"], "Server cancelled subscription");
    assert.equal(e.headers["subscription"], "sub-7");
    assert.equal(e.headers["content-type"], "text/plain");
    assert.equal(e.body.toString(), "The server has canceled a subscription.\nNo more messages will be delivered for \"id='sub-7'\".\n");
    // Open: a frame with a receipt is still answered.
    w.send("SEND", { destination: "/topic/still-open", receipt: "r2" }, "x");
    const r = await w.nextOf("RECEIPT");
    assert.equal(r.headers["receipt-id"], "r2");
    assert.equal(w.closed, false);
  });
});
