/** An unknown hash path. */
import { html } from "../html.js";

export function NotFoundPage() {
  return html`<h1>Page not found</h1><p>There is no page at <code>${location.hash}</code>. <a href="#/">Go to the overview.</a></p>`;
}
