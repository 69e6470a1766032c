/** A virtual-host picker for "add" forms, filled from /api/vhosts once. */
import { useEffect, useState } from "preact/hooks";
import { useApp } from "../app-context.js";
import { SelectField } from "./fields.js";
import { html } from "../html.js";

export function VhostField({ value, set }: { value: string; set: (v: string) => void }) {
  const { api } = useApp();
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    api.get<Array<{ name: string }>>("/vhosts", { columns: "name" }).then((v) => {
      const n = v.map((x) => x.name);
      setNames(n);
      if (!value || !n.includes(value)) set(n.includes("/") ? "/" : (n[0] ?? ""));
    }, () => setNames([]));
  }, [api]);
  return html`<${SelectField} label="Virtual host" name="vhost" value=${value} set=${set} options=${names.map((n) => [n, n] as const)} />`;
}
