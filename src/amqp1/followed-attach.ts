/**
 * An attach whose source or target declared a queue or bound one (a v1 `/queue/q` terminus, an
 * exchange or topic source's own queue) is answered once every other node applied that change, on
 * a node others follow (`coney --workers N`, a spread cluster): the barrier AMQP 0-9-1's declare-ok
 * and bind-ok wait for (definitionsFollowed; docs/CLUSTERING.md, "Answered once everyone knows"),
 * so a message published on any node once the client holds the attach reaches the queue.
 *
 * While it waits the link is registered with its session (a flow for it is taken) but neither
 * attached back nor consuming; detached or ended meanwhile, it is never answered. An attach that
 * changed nothing, or a single node, is answered at once, in the same turn.
 */
import { definitionsFollowed } from "../broker/index.js";
import { fromBrokerError } from "./amqp1-errors.js";
import type { LinkHost, SessionLink } from "./link-host.js";

export function answerAttachWhenFollowed(host: LinkHost, link: SessionLink & { readonly released: boolean }, changed: boolean, answer: () => void): void {
  const followed = changed ? definitionsFollowed(host.conn.broker) : null;
  if (followed === null) return answer();
  const then = (): void => {
    if (link.released) return;
    try {
      answer();
    } catch (err) {
      host.detachLink(link, fromBrokerError(err, "link"));
    }
  };
  void followed.then(then, then);
}
