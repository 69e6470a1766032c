// The link's node queries (frame 60, node-query-frames.ts): a question to the node at the other
// end about itself, answered in JSON over a real link (TCP loopback, the secret's handshake) by
// the answerer its link server was given; its refusal keeps its BrokerError kind; a link server
// without an answerer refuses with NOT_IMPLEMENTED; a lost link fails the questions waiting.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { acceptNodeLink, connectNodeLink, type LeaderLink } from "../../src/node-link/node-link.js";
import { nodeQueryFrame, readNodeQuery, replyJson, replyJsonValue, type NodeQueryAnswerer } from "../../src/node-link/node-query-frames.js";
import { replyFailure, replyId } from "../../src/node-link/link-rpc.js";
import { BrokerError } from "../../src/errors/broker-error.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";

describe("node query frames", () => {
  it("carry a JSON query and a JSON answer with their rpc id", () => {
    const q = { topic: "records", query: { kind: "connections", user: null, names: ["ü", "x/y"] } };
    assert.deepEqual(readNodeQuery(nodeQueryFrame(7, q)), { id: 7, query: q });
    const r = replyJson(9, [{ a: 1 }, "two"]);
    assert.equal(replyId(r), 9);
    assert.equal(replyFailure(r), null);
    assert.deepEqual(replyJsonValue(r), [{ a: 1 }, "two"]);
    assert.equal(replyJsonValue(replyJson(1, undefined)), null);
  });
});

describe("node queries over a real link", () => {
  const secret = randomBytes(32);
  let b: TestBroker;
  const servers: Server[] = [];
  const sockets: Socket[] = [];

  before(async () => {
    b = await startTestBroker();
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    for (const s of servers) await new Promise((r) => s.close(r));
    await b.close();
  });

  async function linkTo(answerQuery?: NodeQueryAnswerer): Promise<LeaderLink> {
    const server = createServer((s) => {
      sockets.push(s);
      acceptNodeLink(b.broker, s, { secret, node: "rabbit@b", ...(answerQuery ? { answerQuery } : {}) }).catch(() => {});
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const socket = connect((server.address() as { port: number }).port, "127.0.0.1");
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return connectNodeLink(socket, { secret, node: "rabbit@a" });
  }

  it("answers with what the answerer returns (sync or async), naming the asking node", async () => {
    const link = await linkTo(async (q, peer) => ({ echoed: q, peer }));
    assert.deepEqual(await link.nodeQuery({ topic: "figures" }), { echoed: { topic: "figures" }, peer: "rabbit@a" });
    const sync = await linkTo((q) => [q, 2]);
    assert.deepEqual(await sync.nodeQuery("x"), ["x", 2]);
    link.close();
    sync.close();
  });

  it("a refusal keeps its kind; no answerer is NOT_IMPLEMENTED; a lost link fails what waits", async () => {
    const refusing = await linkTo(() => {
      throw new BrokerError("accessRefused", "not for you");
    });
    await assert.rejects(refusing.nodeQuery({}), (err: unknown) => err instanceof BrokerError && err.kind === "accessRefused" && err.reason === "not for you");
    const none = await linkTo();
    await assert.rejects(none.nodeQuery({}), (err: unknown) => err instanceof BrokerError && err.kind === "notImplemented");
    const never = await linkTo(() => new Promise(() => {}));
    const waiting = never.nodeQuery({});
    never.close();
    await assert.rejects(waiting);
    await assert.rejects(never.nodeQuery({}), "a closed link refuses at once");
    refusing.close();
    none.close();
  });
});
