/**
 * The live subscriber of `coney-perf stream`, in a worker thread: it subscribes to the run's
 * stream, counts the messages delivered while the parent measures, and reports the count.
 * Messages with the parent: `ready` once subscribed; `measure` / `stop` from it; `result` back.
 */
import { parentPort, workerData } from "node:worker_threads";
import { subscribeCounting } from "./stream-raw-client.js";

export type LiveSubscriberMessage = { readonly type: "ready" } | { readonly type: "result"; readonly received: number } | { readonly type: "error"; readonly message: string };

async function run(d: { url: string; stream: string }): Promise<void> {
  const port = parentPort!;
  let measuring = false;
  let received = 0;
  const c = await subscribeCounting(d.url, d.stream, (n) => {
    if (measuring) received += n;
  });
  port.on("message", (m: { type: "measure" | "stop" }) => {
    if (m.type === "measure") measuring = true;
    else {
      measuring = false;
      c.close();
      port.postMessage({ type: "result", received } satisfies LiveSubscriberMessage);
      port.close();
    }
  });
  port.postMessage({ type: "ready" } satisfies LiveSubscriberMessage);
}

if (parentPort !== null) {
  run(workerData as { url: string; stream: string }).catch((err: unknown) => parentPort!.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) } satisfies LiveSubscriberMessage));
}
