/**
 * A client of RabbitMQ 4's `/management` node over rhea, shaped as RabbitMQ's own AMQP 1.0
 * client libraries send it (rabbitmq-amqp-dotnet-client / -java-client, the Erlang
 * rabbitmq_amqp_client): a link pair named "management-link-pair", both halves pre-settled with
 * the link property paired = true; each request pre-settled with a fresh message-id, subject =
 * the HTTP method, to = the percent-encoded path, reply-to "$me", and its body as one amqp-value
 * section. Responses are matched to requests by correlation-id.
 */
import { randomUUID } from "node:crypto";
import type { Connection, EventContext, Message, Receiver, Sender } from "rhea";
import { errorOf, type Amqp1Error } from "./rhea-client.js";
import { withTimeout } from "./wait.js";

const WAIT_MS = 5000;
export const LINK_PAIR = "management-link-pair";

interface AttachFrame {
  readonly performative: { readonly name: string; readonly role: boolean; readonly handle: number };
}

export interface ManagementResponse {
  readonly status: string;
  readonly body: unknown;
  readonly message: Message;
}

export interface ManagementClient {
  readonly sender: Sender;
  readonly receiver: Receiver;
  request(method: string, path: string, body?: unknown, messageId?: unknown): Promise<ManagementResponse>;
  /** The error the session ends with (RabbitMQ 4 ends it on a missing permission). */
  sessionError(): Promise<Amqp1Error>;
}

/** RFC 3986 percent-encoding of a name (what the clients' URI quoting does). */
export const quote = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export async function openManagement(c: Connection, options: { paired?: boolean; responses?: boolean } = {}): Promise<ManagementClient> {
  const session = c.create_session();
  session.begin();
  const terminus = { address: "/management" };
  const properties = options.paired === false ? {} : { paired: true };
  const sender = session.open_sender({ name: LINK_PAIR, target: { ...terminus }, source: { ...terminus }, snd_settle_mode: 1, rcv_settle_mode: 0, properties } as never);
  // rhea keeps a session's links by name, so the pair's second half would replace the first, and
  // it finds the link an attach answers by name alone: the halves are kept apart here and the
  // broker's attaches routed by role (role true: the broker receives, i.e. answers our sender).
  const links = (session as unknown as { links: Record<string, unknown> }).links;
  delete links[LINK_PAIR];
  links[`${LINK_PAIR} (sender)`] = sender;
  const receiver: Receiver | null = options.responses === false ? null : session.open_receiver({ name: LINK_PAIR, source: { ...terminus }, target: { ...terminus }, snd_settle_mode: 1, rcv_settle_mode: 0, properties, credit_window: 8, autoaccept: false } as never);
  const s = session as unknown as { on_attach(frame: AttachFrame): void; remote: { handles: Record<number, unknown> } };
  const onAttach = s.on_attach.bind(session);
  s.on_attach = (frame: AttachFrame): void => {
    const p = frame.performative;
    if (p.name !== LINK_PAIR) return onAttach(frame);
    const link = (p.role ? sender : receiver) as unknown as { on_attach(f: AttachFrame): void; remote: { attach: unknown } };
    s.remote.handles[p.handle] = link;
    link.on_attach(frame);
    link.remote.attach = p;
  };
  const pending = new Map<string, (r: ManagementResponse) => void>();
  // A typed id (rhea.types.wrap_binary(…)) is matched by its value.
  const key = (id: unknown): string => (Buffer.isBuffer(id) ? `b:${id.toString("hex")}` : id !== null && typeof id === "object" && "value" in id ? key((id as { value: unknown }).value) : `s:${String(id)}`);
  receiver?.on("message", (ctx: EventContext) => {
    const m = ctx.message!;
    const resolve = pending.get(key(m.correlation_id));
    pending.delete(key(m.correlation_id));
    resolve?.({ status: String(m.subject), body: m.body, message: m });
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      let open = 0;
      const opened = (): void => {
        if (++open === (receiver === null ? 1 : 2)) resolve();
      };
      sender.once("sender_open", opened);
      receiver?.once("receiver_open", opened);
      sender.once("sender_error", (ctx: EventContext) => reject(Object.assign(new Error("sender error"), errorOf(ctx.sender!.error))));
      receiver?.once("receiver_error", (ctx: EventContext) => reject(Object.assign(new Error("receiver error"), errorOf(ctx.receiver!.error))));
    }),
    WAIT_MS,
    "the management link pair",
  );
  return {
    sender,
    receiver: receiver!,
    request(method, path, body = null, messageId = randomUUID()) {
      const answered = new Promise<ManagementResponse>((resolve) => pending.set(key(messageId), resolve));
      const send = (): void => {
        sender.send({ message_id: messageId, to: path, subject: method, reply_to: "$me", body } as Message);
      };
      if (sender.sendable()) send();
      else sender.once("sendable", send);
      return withTimeout(answered, WAIT_MS, `${method} ${path}`);
    },
    sessionError() {
      return withTimeout(
        new Promise<Amqp1Error>((resolve) => {
          session.once("session_error", (ctx: EventContext) => resolve(errorOf(ctx.session!.error)));
          session.once("session_close", (ctx: EventContext) => resolve(errorOf(ctx.session!.error)));
        }),
        WAIT_MS,
        "the session to end",
      );
    },
  };
}
