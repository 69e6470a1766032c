/**
 * A connection's or channel's name as RabbitMQ forms it ("127.0.0.1:51234 -> 127.0.0.1:5672 (1)"),
 * for display: the line may wrap at its spaces, never inside "->" (a browser may break after a
 * hyphen, which split the arrow in narrow tables). The text stays exactly the name when copied.
 */
import { html } from "../html.js";

export function peerName(name: string): unknown {
  const parts = name.split(" -> ");
  if (parts.length === 1) return name;
  return parts.map((p, i) => (i === 0 ? p : html` <span class="nobr">-></span> ${p}`));
}
