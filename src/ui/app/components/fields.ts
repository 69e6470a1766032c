/**
 * Form pieces: labelled inputs and a key/value/type argument editor (for headers and x-*
 * arguments). Every field has a visible label (keyboard and screen-reader friendly).
 */
import type { ComponentChildren } from "preact";
import { html } from "../html.js";

export function TextField({ label, value, set, name, placeholder, required, type = "text", hint }: {
  label: string;
  value: string;
  set: (v: string) => void;
  name?: string;
  placeholder?: string;
  required?: boolean;
  type?: string;
  hint?: ComponentChildren;
}) {
  return html`<label class="field">${label}
    <input name=${name} type=${type} value=${value} placeholder=${placeholder} required=${required} onInput=${(e: Event) => set((e.target as HTMLInputElement).value)} />
    ${hint ? html`<span class="hint">${hint}</span>` : null}
  </label>`;
}

export function SelectField({ label, value, set, options, name, required }: { label: string; value: string; set: (v: string) => void; options: ReadonlyArray<readonly [string, string]>; name?: string; required?: boolean }) {
  return html`<label class="field">${label}
    <select name=${name} value=${value} required=${required} onChange=${(e: Event) => set((e.target as HTMLSelectElement).value)}>
      ${options.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
    </select>
  </label>`;
}

export type ArgType = "string" | "number" | "boolean" | "list";
export interface ArgRow {
  key: string;
  value: string;
  type: ArgType;
}

export const emptyArg = (): ArgRow => ({ key: "", value: "", type: "string" });

/** The rows as a JSON object; throws a readable error for a bad number, boolean or list. */
export function argsObject(rows: readonly ArgRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    const key = r.key.trim();
    if (!key) continue;
    if (r.type === "number") {
      const n = Number(r.value);
      if (r.value.trim() === "" || !Number.isFinite(n)) throw new Error(`${key}: "${r.value}" is not a number`);
      out[key] = n;
    } else if (r.type === "boolean") {
      if (r.value !== "true" && r.value !== "false") throw new Error(`${key}: use true or false`);
      out[key] = r.value === "true";
    } else if (r.type === "list") {
      try {
        const v: unknown = JSON.parse(r.value);
        if (!Array.isArray(v)) throw new Error("not a list");
        out[key] = v;
      } catch {
        throw new Error(`${key}: a list is JSON, like ["a", 1]`);
      }
    } else out[key] = r.value;
  }
  return out;
}

/** Editable key / value / type rows; an empty last row is always there to type into. */
export function ArgsEditor({ label, rows, set, keyList }: { label: string; rows: ArgRow[]; set: (rows: ArgRow[]) => void; keyList?: string }) {
  const shown = rows.length === 0 || rows[rows.length - 1]?.key ? [...rows, emptyArg()] : rows;
  const update = (i: number, patch: Partial<ArgRow>): void => set(shown.map((r, j) => (j === i ? { ...r, ...patch } : r)).filter((r, j, all) => r.key || r.value || j === all.length - 1));
  return html`<fieldset class="args"><legend>${label}</legend>
    ${shown.map(
      (r, i) => html`<div class="arg-row">
        <input aria-label=${`${label} ${i + 1} name`} placeholder="name" value=${r.key} list=${keyList} onInput=${(e: Event) => update(i, { key: (e.target as HTMLInputElement).value })} />
        <span aria-hidden="true">=</span>
        <input aria-label=${`${label} ${i + 1} value`} placeholder="value" value=${r.value} onInput=${(e: Event) => update(i, { value: (e.target as HTMLInputElement).value })} />
        <select aria-label=${`${label} ${i + 1} type`} value=${r.type} onChange=${(e: Event) => update(i, { type: (e.target as HTMLSelectElement).value as ArgType })}>
          <option value="string">String</option><option value="number">Number</option><option value="boolean">Boolean</option><option value="list">List</option>
        </select>
      </div>`,
    )}
  </fieldset>`;
}
