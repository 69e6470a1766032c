/** Taking single messages from a queue with a real consumer, and reading x-death as amqplib decodes it. */
import type { Channel, ConsumeMessage } from "amqplib";
import { withTimeout } from "./wait.js";

/** x-death as amqplib decodes it, looked at as plain tables. */
export const deathsOf = (m: ConsumeMessage): Array<Record<string, unknown>> => m.properties.headers!["x-death"] as unknown as Array<Record<string, unknown>>;

/** The next message a queue delivers to a fresh consumer (ack mode). */
export function nextMessage(ch: Channel, queue: string): Promise<ConsumeMessage> {
  return withTimeout(
    new Promise<ConsumeMessage>((resolve) => {
      let got = false;
      void ch.consume(queue, (m) => {
        if (!m || got) return;
        got = true;
        void ch.cancel(m.fields.consumerTag).then(() => resolve(m));
      });
    }),
    3000,
    `a message in ${queue}`,
  );
}
