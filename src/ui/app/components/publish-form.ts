/**
 * Publish a message through an exchange (the queue page publishes through the default exchange):
 * routing key, delivery mode, headers, properties and payload, as POST .../publish takes them.
 * Says whether the message was routed.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { html } from "../html.js";
import { useAction } from "./action.js";
import { ErrorBox, Notice } from "./error-box.js";
import { argsObject, ArgsEditor, SelectField, TextField, type ArgRow } from "./fields.js";

const PROPERTY_NAMES = ["content_type", "content_encoding", "priority", "correlation_id", "reply_to", "expiration", "message_id", "timestamp", "type", "user_id", "app_id", "cluster_id"];
const NUMERIC = new Set(["priority", "timestamp"]);

export function PublishForm({ vhost, exchange, routingKey: fixedKey }: { vhost: string; exchange: string; routingKey?: string }) {
  const { api } = useApp();
  const [routingKey, setRoutingKey] = useState(fixedKey ?? "");
  const [mode, setMode] = useState("1");
  const [headers, setHeaders] = useState<ArgRow[]>([]);
  const [props, setProps] = useState<ArgRow[]>([]);
  const [payload, setPayload] = useState("");
  const [encoding, setEncoding] = useState("string");
  const act = useAction();

  const submit = (e: Event): Promise<boolean> => {
    e.preventDefault();
    return act.run(async () => {
      const properties: Record<string, unknown> = { delivery_mode: Number(mode) };
      const h = argsObject(headers);
      if (Object.keys(h).length) properties["headers"] = h;
      for (const [k, v] of Object.entries(argsObject(props))) {
        if (!PROPERTY_NAMES.includes(k)) throw new Error(`${k} is not a message property (${PROPERTY_NAMES.join(", ")})`);
        properties[k] = NUMERIC.has(k) ? Number(v) : String(v);
      }
      const res = await api.post<{ routed: boolean }>(apiPath`/exchanges/${vhost}/${exchange || "amq.default"}/publish`, {
        routing_key: routingKey,
        properties,
        payload,
        payload_encoding: encoding,
      });
      return res.routed ? "Message published and routed." : "Message published, but not routed: no binding matched it.";
    });
  };

  return html`<form class="form" onSubmit=${submit} aria-label="Publish message">
    ${fixedKey === undefined ? html`<${TextField} label="Routing key" name="routing_key" value=${routingKey} set=${setRoutingKey} />` : html`<p class="muted">Published through the default exchange with routing key <code>${fixedKey}</code>.</p>`}
    <${SelectField} label="Delivery mode" name="delivery_mode" value=${mode} set=${setMode} options=${[["1", "1 – non-persistent"], ["2", "2 – persistent"]]} />
    <${ArgsEditor} label="Headers" rows=${headers} set=${setHeaders} />
    <datalist id="message-properties">${PROPERTY_NAMES.map((p) => html`<option value=${p} />`)}</datalist>
    <${ArgsEditor} label="Properties" rows=${props} set=${setProps} keyList="message-properties" />
    <label class="field">Payload <textarea name="payload" rows="5" value=${payload} onInput=${(e: Event) => setPayload((e.target as HTMLTextAreaElement).value)}></textarea></label>
    <${SelectField} label="Payload encoding" name="payload_encoding" value=${encoding} set=${setEncoding} options=${[["string", "String (UTF-8)"], ["base64", "Base64"]]} />
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Publish message</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} kind=${act.done.includes("not routed") ? "warn" : "ok"} />
  </form>`;
}
