/**
 * How a failed request is shown: a 403 says plainly that this user may not see or do it (and the
 * API's reason), other errors show status and reason. Never a blank page.
 */
import { ApiError } from "../api.js";
import { html } from "../html.js";

export function describeError(err: unknown): { title: string; detail: string } {
  if (err instanceof ApiError) {
    if (err.status === 403) return { title: "Access refused", detail: `Your user's tags or permissions do not allow this (HTTP 403). ${err.reason}`.trim() };
    // RabbitMQ's 404 reason is mostly "Not Found" itself: repeat it only when it says more.
    if (err.status === 404) return { title: "Not found", detail: /^(not[ _]found|object not found)$/i.test(err.reason.trim()) || err.reason.trim() === "" ? "It may have been deleted." : `It may have been deleted (${err.reason}).` };
    if (err.status === 0) return { title: "Broker unreachable", detail: err.reason };
    return { title: `Error ${err.status}: ${err.error}`, detail: err.reason };
  }
  return { title: "Error", detail: err instanceof Error ? err.message : String(err) };
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const { title, detail } = describeError(error);
  return html`<div class="msg msg-error" role="alert"><strong>${title}</strong> ${detail}</div>`;
}

export function Notice({ text, kind = "ok" }: { text: string; kind?: "ok" | "warn" }) {
  if (!text) return null;
  return html`<div class=${`msg msg-${kind}`} role="status">${text}</div>`;
}

/**
 * A detail page whose object could not be read (refused, deleted): the error and the way back,
 * instead of sections that would each repeat the same refusal.
 */
export function Unavailable({ error, back, backLabel }: { error: unknown; back: string; backLabel: string }) {
  return html`<${ErrorBox} error=${error} /><p><a href=${back}>${backLabel}</a></p>`;
}

/**
 * Whether a detail page must give way to Unavailable: nothing read yet and an error, or the
 * object gone since (a 404 on refresh): stale details and live action forms for an object that
 * no longer exists would mislead (RabbitMQ's UI leaves such a page too).
 */
export function unavailable(live: { data?: unknown; error?: unknown }): boolean {
  if (!live.error) return false;
  return live.data === undefined || (live.error instanceof ApiError && live.error.status === 404);
}
