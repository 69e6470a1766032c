/** Small shared display pieces: a key/value table, a figure box, a usage bar, a section. */
import type { ComponentChild, ComponentChildren } from "preact";
import { html } from "../html.js";
import { fmtValue } from "../format.js";

/** Rows of label → value; objects (client properties, arguments) nest as their own tables. */
export function KvTable({ rows, label }: { rows: ReadonlyArray<[string, ComponentChild]>; label?: string }) {
  return html`<table class="kv" aria-label=${label}><tbody>
    ${rows.map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}
  </tbody></table>`;
}

/** An object's entries as a table, nested objects as nested tables. */
export function ObjectTable({ value, label }: { value: unknown; label?: string }): ComponentChild {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return html`<span>${fmtValue(value)}</span>`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return html`<span class="muted">none</span>`;
  return html`<${KvTable} label=${label} rows=${entries.map(([k, v]) => [k, typeof v === "object" && v !== null && !Array.isArray(v) ? html`<${ObjectTable} value=${v} />` : fmtValue(v)])} />`;
}

export function Stat({ label, value, href }: { label: string; value: string; href?: string }) {
  const inner = html`<span class="stat-value">${value}</span><span class="stat-label">${label}</span>`;
  return href ? html`<a class="stat" href=${href}>${inner}</a>` : html`<div class="stat">${inner}</div>`;
}

/** Used against a limit (memory against its alarm watermark…); `alarm` colours it red. */
export function Usage({ used, limit, text, alarm, invert }: { used: number; limit: number; text: string; alarm: boolean; invert?: boolean }) {
  const pct = limit > 0 ? Math.min(100, (used / limit) * 100) : 0;
  const warn = alarm ? "alarm" : invert ? "" : pct > 80 ? "warn" : "";
  return html`<div class=${`usage ${warn}`}>
    <div class="usage-bar" role="meter" aria-valuemin="0" aria-valuemax=${limit} aria-valuenow=${used} aria-label=${text}><span style=${{ width: `${pct}%` }}></span></div>
    <span class="usage-text">${text}${alarm ? html` <strong class="alarm-flag">ALARM</strong>` : null}</span>
  </div>`;
}

export function Section({ title, children, open = true }: { title: string; children: ComponentChildren; open?: boolean }) {
  return html`<details class="section" open=${open}><summary><h2>${title}</h2></summary><div class="section-body">${children}</div></details>`;
}
