/**
 * The management API's definition changes answered once every worker knows them (issue 42;
 * docs/CLUSTERING.md, "Answered once everyone knows"): under `coney --workers N` the reply to a
 * PUT, POST or DELETE leaves once every other running worker applied what this worker told so far
 * (TopologyMirror.settled) — users, permissions, vhosts, exchanges, queues, bindings, policies,
 * parameters, limits, a definitions import — so the client's next step, on whichever worker it
 * lands, finds them, as after RabbitMQ's Mnesia transaction. One hook, not one per route.
 *
 * A single node has no mirror: a GET or a reply there passes at once. A request that changed
 * nothing (an error, a message fetch) costs no round trip: the mirror skips it when nothing was
 * told since its last barrier. A silent worker is not waited for (the barrier's 5 s timeout).
 * On a spread node a change that lost to an earlier one of another node in etcd's order is
 * answered with its refusal instead (the status and body sendError gives it: http-errors.ts).
 */
import type { FastifyInstance } from "fastify";
import { definitionsAnswered, type Broker } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import { errorAnswer } from "./http-errors.js";

export function holdChangesUntilFollowed(app: FastifyInstance, broker: Broker): void {
  app.addHook("onSend", (req, reply, payload, done) => {
    const followed = req.method === "GET" || req.method === "HEAD" ? null : definitionsAnswered(broker);
    if (followed === null) return done(null, payload);
    followed.then(
      () => done(null, payload),
      (err: unknown) => {
        // A spread cluster refused the change: it lost to an earlier one of another node (TopologyMirror.verdict).
        if (!(err instanceof BrokerError) || reply.statusCode >= 400) return done(null, payload);
        const { status, body } = errorAnswer(err);
        reply.code(status).type("application/json");
        done(null, JSON.stringify(body));
      },
    );
  });
}
