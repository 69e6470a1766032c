/**
 * Limits of vhosts or users: a table of each owner's limits (Remove per limit) and a form to set
 * one. A negative value means "no limit", as in RabbitMQ; 0 refuses every new one. Without
 * `canEdit` (the user lacks the administrator tag) the table is read-only and there is no form.
 */
import { useState } from "preact/hooks";
import { useApp } from "../app-context.js";
import { fmtNum } from "../format.js";
import { html } from "../html.js";
import { useAction } from "./action.js";
import { DeleteButton } from "./admin-kit.js";
import { ErrorBox, Notice } from "./error-box.js";
import { SelectField, TextField } from "./fields.js";

export interface LimitsOf {
  readonly owner: string;
  readonly value: Record<string, number>;
}

export function LimitsEditor({ noun, records, owners, known, path, canEdit, onDone }: {
  /** "Virtual host" or "User". */
  noun: string;
  records: readonly LimitsOf[];
  /** Who the form may set a limit for; one name hides the picker. */
  owners: readonly string[];
  /** [limit, label] the API accepts. */
  known: ReadonlyArray<readonly [string, string]>;
  /** The API path of one owner's limit. */
  path: (owner: string, limit: string) => string;
  canEdit: boolean;
  onDone: () => void;
}) {
  const { api } = useApp();
  const [owner, setOwner] = useState("");
  const [limit, setLimit] = useState(known[0]?.[0] ?? "");
  const [value, setValue] = useState("");
  const act = useAction(onDone);
  const target = owner || owners[0] || "";
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      const n = Number(value);
      if (value.trim() === "" || !Number.isInteger(n)) throw new Error(`${limit}: "${value}" is not a whole number.`);
      await api.put(path(target, limit), { value: n });
      setValue("");
      return `${limit} of ${target} set to ${n}.`;
    });
  };
  const shown = records.filter((r) => Object.keys(r.value).length > 0);
  return html`${shown.length === 0
      ? html`<p class="muted">No limits set.</p>`
      : html`<table class="grid" aria-label=${`${noun} limits`}><thead><tr>
          <th>${noun}</th>${known.map(([, label]) => html`<th class="num">${label}</th>`)}
        </tr></thead><tbody>
          ${shown.map(
            (r) => html`<tr key=${r.owner}><td>${r.owner}</td>
              ${known.map(([k]) => {
                const v = r.value[k];
                if (v === undefined) return html`<td class="num muted">–</td>`;
                return html`<td class="num">${v < 0 ? "no limit" : fmtNum(v)}
                  ${canEdit ? html` <${DeleteButton} label="Remove" what=${`${k} of ${r.owner}`} run=${() => api.del(path(r.owner, k))} onDone=${onDone} />` : null}</td>`;
              })}
            </tr>`,
          )}
        </tbody></table>`}
    ${canEdit && owners.length > 0
      ? html`<form class="form admin-form" onSubmit=${submit} aria-label=${`Set a ${noun.toLowerCase()} limit`}>
          <div class="field-row">
            ${owners.length > 1 ? html`<${SelectField} label=${noun} name="owner" value=${target} set=${setOwner} options=${owners.map((o) => [o, o] as const)} />` : null}
            <${SelectField} label="Limit" name="limit" value=${limit} set=${setLimit} options=${known} />
            <${TextField} label="Value" name="value" type="number" value=${value} set=${setValue} required=${true} hint="0 refuses every new one; negative means no limit." />
          </div>
          <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Set limit</button></div>
          <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
        </form>`
      : null}`;
}
