/**
 * A list page's "Add a new …" section (ui/README.md, "Permissions"): offered, closed, only in the
 * virtual hosts whose configure pattern lets the user declare something — with a vhost chosen
 * above, only that one counts — and where there is none, a note that says why in its place.
 * Nothing shows until the user's access is known.
 */
import type { ComponentChild } from "preact";
import { vhostsWhere, whyNoneIn, whyNowhere } from "../access.js";
import { useApp } from "../app-context.js";
import { html } from "../html.js";
import { Section } from "./kv.js";
import { Refused } from "./refused.js";

export function AddSection({ title, action, form }: { title: string; action: string; form: (where: readonly string[]) => ComponentChild }) {
  const { access, vhost } = useApp();
  if (!access) return null;
  const where = vhostsWhere(access, "configure").filter((v) => !vhost || v === vhost);
  if (where.length > 0) return html`<${Section} title=${title} open=${false}>${form(where)}<//>`;
  return html`<${Refused} why=${vhost ? whyNoneIn(access, vhost, "configure", action) : whyNowhere(access, "configure", action)} />`;
}
