/**
 * An action the user may not take, in its place: what it would need and whom to ask, with the
 * permission explainer one click away. Pages show this instead of a button that could only fail.
 */
import { html } from "../html.js";
import { href } from "../router.js";

export function Refused({ why, user, vhost }: { why: string; user?: string; vhost?: string }) {
  return html`<p class="refused" role="note">${why}${user && vhost ? html` <a href=${href("admin", "explain", user, vhost)}>Explain…</a>` : null}</p>`;
}
