/**
 * Get messages from a queue (POST .../get): count, ack mode, encoding, truncation, and the
 * messages shown with their properties. Part of the Queue page. Payloads render as text, never HTML.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { SelectField, TextField } from "../components/fields.js";
import { KvTable, ObjectTable } from "../components/kv.js";
import { fmtNum } from "../format.js";
import { html } from "../html.js";

interface GotMessage {
  payload: string;
  payload_bytes: number;
  payload_encoding: string;
  redelivered: boolean;
  exchange: string;
  routing_key: string;
  message_count: number;
  properties: Record<string, unknown>;
}

const ACK_MODES = [
  ["ack_requeue_true", "Nack, requeue (messages stay in the queue)"],
  ["reject_requeue_true", "Reject, requeue"],
  ["ack_requeue_false", "Ack (removes the messages)"],
  ["reject_requeue_false", "Reject, no requeue (dead-letters them)"],
] as const;

export function GetMessages({ vhost, name, onChange }: { vhost: string; name: string; onChange: () => void }) {
  const { api } = useApp();
  const [ackmode, setAckmode] = useState("ack_requeue_true");
  const [encoding, setEncoding] = useState("auto");
  const [count, setCount] = useState("1");
  const [truncate, setTruncate] = useState("50000");
  const [messages, setMessages] = useState<GotMessage[] | null>(null);
  const act = useAction(onChange);
  const submit = (e: Event): Promise<boolean> => {
    e.preventDefault();
    return act.run(async () => {
      const n = Number(count);
      if (!Number.isInteger(n) || n < 1) throw new Error("Messages: a whole number of at least 1");
      const body: Record<string, unknown> = { count: n, ackmode, encoding };
      if (truncate.trim() !== "") body["truncate"] = Number(truncate);
      const got = await api.post<GotMessage[]>(apiPath`/queues/${vhost}/${name}/get`, body);
      setMessages(got);
      return got.length === 0 ? "The queue is empty." : "";
    });
  };
  return html`<form class="form" onSubmit=${submit} aria-label="Get messages">
      <p class="hint">Getting messages is destructive with Ack or Reject without requeue; with requeue they are marked redelivered.</p>
      <div class="field-row">
        <${SelectField} label="Ack mode" name="ackmode" value=${ackmode} set=${setAckmode} options=${ACK_MODES} />
        <${SelectField} label="Encoding" name="encoding" value=${encoding} set=${setEncoding} options=${[["auto", "Automatic (string if UTF-8, else base64)"], ["base64", "Base64"]]} />
        <${TextField} label="Messages" name="count" type="number" value=${count} set=${setCount} />
        <${TextField} label="Truncate at (bytes)" name="truncate" type="number" value=${truncate} set=${setTruncate} />
      </div>
      <div class="form-actions"><button type="submit" disabled=${act.busy}>Get messages</button></div>
      <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} kind="warn" />
    </form>
    ${messages?.map(
      (m, i) => html`<article class="message" aria-label=${`Message ${i + 1}`}>
        <h3>Message ${i + 1}</h3>
        <${KvTable} rows=${[
          ["Exchange", m.exchange || "(AMQP default)"],
          ["Routing key", m.routing_key],
          ["Redelivered", m.redelivered ? "yes" : "no"],
          ["Remaining in queue", fmtNum(m.message_count)],
          ["Properties", html`<${ObjectTable} value=${m.properties} />`],
          ["Payload", html`<span class="muted small">${fmtNum(m.payload_bytes)} bytes, encoding: ${m.payload_encoding}</span><pre class="payload">${m.payload}</pre>`],
        ]} />
      </article>`,
    )}`;
}
