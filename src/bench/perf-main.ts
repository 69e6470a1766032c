/**
 * coney-perf / `npm run bench`: one load run against any AMQP 0-9-1 broker, PerfTest style.
 * `coney-perf all …` runs the scenario list instead (scenarios.ts); `coney-perf cluster` the
 * persistent scenario on a loopback cluster against a single node (cluster-bench.ts); `coney-perf
 * mqtt` one MQTT publisher → subscriber run (mqtt-bench.ts); `coney-perf stream` the native
 * stream protocol's publish and consume rates (stream-bench.ts); `coney-perf testing` what the
 * in-memory test broker costs a test suite (test-broker-bench.ts); `coney-perf sizes` the message-size
 * sweep with the broker's CPU per message and peak memory (size-sweep.ts); `coney-perf shovel` how
 * long a dynamic shovel takes to move a filled queue (shovel-bench.ts); `coney-perf relay` the CPU
 * floor under relaying a body over loopback TCP, with no broker (relay-floor.ts); `coney-perf
 * spread` how a broker of several nodes shares the work (spread-bench.ts).
 */
import { Command, InvalidArgumentError } from "commander";
import { formatMiB, residentBytes } from "./broker-memory.js";
import { DEFAULT_PERF_OPTIONS, parsePerfClient, type PerfClient, type PerfOptions } from "./perf-options.js";
import { formatResult, runPerf } from "./perf-run.js";
import { runScenarios } from "./scenarios.js";
import { runClusterBench } from "./cluster-bench.js";
import { formatMqttResult, runMqttBench, type MqttBenchOptions } from "./mqtt-bench.js";
import { formatStompResult, runStompBench } from "./stomp-bench.js";
import { runTestBrokerBench } from "./test-broker-bench.js";
import { formatStreamResult, runStreamBench } from "./stream-bench.js";
import { runSizeSweep, type SweepMode, type SweepTarget } from "./size-sweep.js";
import { formatShovelResult, runShovelBench } from "./shovel-bench.js";
import { runRelayFloor } from "./relay-floor.js";
import { runSpreadBench } from "./spread-bench.js";
import { runSpreadClusterBench } from "./spread-cluster-bench.js";

const int = (min: number) => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer ≥ ${min}`);
  return n;
};

const clientArg = (v: string): PerfClient => {
  try {
    return parsePerfClient(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
};

export async function perfMain(argv: string[]): Promise<void> {
  const d = DEFAULT_PERF_OPTIONS;
  const program = new Command("coney-perf")
    // Options after `all` belong to `all` (both define --uri, --broker-pid, -z).
    .enablePositionalOptions()
    .description("AMQP 0-9-1 load generator: producers and consumers in separate processes")
    .option("--uri <uri>", "AMQP URI of the broker", d.uri)
    .option("-x, --producers <n>", "producer processes", int(0), d.producers)
    .option("-y, --consumers <n>", "consumer processes", int(0), d.consumers)
    .option("--queues <n>", "queues (producer i publishes to queue i mod n)", int(1), d.queues)
    .option("-s, --size <bytes>", "message body size (≥ 8)", int(8), d.size)
    .option("--persistent", "persistent messages into durable queues", false)
    .option("-c, --confirm <n>", "publisher confirms, at most n unconfirmed per producer (0: off)", int(0), d.confirm)
    .option("-q, --prefetch <n>", "consumer prefetch", int(0), d.prefetch)
    .option("-a, --autoack", "consume without acks", false)
    .option("--multi-ack-every <n>", "manual acks: one multiple ack every n deliveries", int(1), d.multiAckEvery)
    .option("--fanout", "publish to a fanout exchange bound to every queue", false)
    .option("--stream", "stream queues (x-queue-type: stream), consumed from the next offset", false)
    .option("-z, --duration <seconds>", "run time", int(1), d.durationSeconds)
    .option("--broker-pid <pid>", "print the broker's resident memory after the run", int(1))
    .option("--queue-prefix <p>", "prefix of the names the run declares", d.queuePrefix)
    .option("--client <name>", "the clients' code: amqp-client (@cloudamqp/amqp-client) or raw (coney-perf's lean client)", clientArg, "amqp-client")
    .action(async (v: Record<string, unknown>) => {
      const o: PerfOptions = {
        uri: v["uri"] as string,
        producers: v["producers"] as number,
        consumers: v["consumers"] as number,
        queues: v["queues"] as number,
        size: v["size"] as number,
        persistent: v["persistent"] as boolean,
        confirm: v["confirm"] as number,
        prefetch: v["prefetch"] as number,
        autoAck: v["autoack"] as boolean,
        multiAckEvery: v["multiAckEvery"] as number,
        fanout: v["fanout"] as boolean,
        stream: v["stream"] as boolean,
        durationSeconds: v["duration"] as number,
        queuePrefix: v["queuePrefix"] as string,
        client: v["client"] as PerfClient,
      };
      process.stdout.write(`${formatResult(await runPerf(o))}\n`);
      const pid = v["brokerPid"] as number | undefined;
      if (pid !== undefined) process.stdout.write(`broker RSS: ${formatMiB(residentBytes(pid))}\n`);
    });
  program
    .command("all")
    .description("run the scenario list of docs/PERFORMANCE.md and print one table")
    .option("--uri <uri>", "AMQP URI of the broker", d.uri)
    .option("--http <url>", "management API base URL (with credentials, e.g. http://guest:guest@127.0.0.1:15672)")
    .option("--metrics <url>", "Prometheus endpoint base URL (e.g. http://127.0.0.1:15692)")
    .option("--broker-pid <pid>", "the broker's pid, for resident memory", int(1))
    .option("--name <name>", "the broker's column title", "broker")
    .option("--compare-uri <uri>", "a second broker, measured in the same run")
    .option("--compare-http <url>", "the second broker's management API")
    .option("--compare-metrics <url>", "the second broker's Prometheus endpoint")
    .option("--compare-pid <pid>", "the second broker's pid", int(1))
    .option("--compare-name <name>", "the second broker's column title", "compare")
    .option("-z, --duration <seconds>", "seconds per throughput scenario", int(1), 5)
    .option("--queue-count <n>", "queues for the declare/list/memory scenarios", int(1), 10_000)
    .option("--connection-count <n>", "idle connections for the memory scenario", int(1), 1000)
    .option("--stats-settle <ms>", "wait before timing the list scenarios (RabbitMQ's statistics come every 5 s)", int(0), 6000)
    .option("--only <names>", "comma-separated scenario names to run")
    .action(async (v: Record<string, unknown>) => {
      const targets = [{ name: v["name"] as string, uri: v["uri"] as string, http: v["http"] as string | undefined, metrics: v["metrics"] as string | undefined, pid: v["brokerPid"] as number | undefined }];
      if (v["compareUri"]) {
        targets.push({ name: v["compareName"] as string, uri: v["compareUri"] as string, http: v["compareHttp"] as string | undefined, metrics: v["compareMetrics"] as string | undefined, pid: v["comparePid"] as number | undefined });
      }
      const only = typeof v["only"] === "string" ? (v["only"] as string).split(",") : null;
      await runScenarios(targets, { durationSeconds: v["duration"] as number, queueCount: v["queueCount"] as number, connectionCount: v["connectionCount"] as number, statsSettleMs: v["statsSettle"] as number, only }, (line) => process.stdout.write(`${line}\n`));
    });
  program
    .command("cluster")
    .description("persistent+confirm (a durable queue, then a stream) on a loopback cluster (etcd + N nodes started here) against a single node")
    .option("--nodes <n>", "cluster nodes", int(1), 3)
    .option("-z, --duration <seconds>", "seconds per run", int(1), 5)
    .option("--etcd <path>", "the etcd binary", "/usr/bin/etcd")
    .option("--etcd-lease-ttl <seconds>", "the nodes' etcd lease", int(1), 5)
    .action(async (v: Record<string, unknown>) => {
      const o = { nodes: v["nodes"] as number, durationSeconds: v["duration"] as number, etcdBin: v["etcd"] as string, leaseTtl: v["etcdLeaseTtl"] as number };
      await runClusterBench(o, (line) => process.stdout.write(`${line}\n`));
    });
  program
    .command("mqtt")
    .description("MQTT 3.1.1: one publisher → subscriber(s) on one topic, QoS 0, 1 or 2")
    .option("--url <url>", "MQTT URL of the broker", "mqtt://guest:guest@127.0.0.1:1883")
    .option("--qos <n>", "0, 1 or 2", int(0), 1)
    .option("-s, --size <bytes>", "payload size (≥ 8)", int(8), 64)
    .option("--subscribers <n>", "subscribers of the topic", int(1), 1)
    .option("--inflight <n>", "QoS 1 and 2: PUBLISH packets awaiting PUBACK (PUBCOMP)", int(1), 100)
    .option("-z, --duration <seconds>", "run time", int(1), 5)
    .action(async (v: Record<string, unknown>) => {
      const o: MqttBenchOptions = { url: v["url"] as string, qos: v["qos"] === 0 ? 0 : v["qos"] === 2 ? 2 : 1, size: v["size"] as number, subscribers: v["subscribers"] as number, inflight: v["inflight"] as number, durationSeconds: v["duration"] as number };
      process.stdout.write(`${formatMqttResult(o, await runMqttBench(o))}\n`);
    });
  program
    .command("stomp")
    .description("STOMP 1.2: one publisher → one subscriber on a /topic destination; with --compare-url, a second broker in the same run")
    .option("--url <url>", "STOMP URL of the broker", "stomp://guest:guest@127.0.0.1:61613")
    .option("--name <name>", "the broker's row title", "broker")
    .option("--compare-url <url>", "a second broker, measured in the same run")
    .option("--compare-name <name>", "the second broker's row title", "compare")
    .option("-s, --size <bytes>", "body size", int(1), 64)
    .option("--window <n>", "messages published but not yet received, at most", int(1), 10_000)
    .option("--persistent", "persistent:true SENDs through a durable subscription queue", false)
    .option("-z, --duration <seconds>", "run time per broker", int(1), 5)
    .action(async (v: Record<string, unknown>) => {
      const base = { size: v["size"] as number, window: v["window"] as number, durationSeconds: v["duration"] as number, persistent: v["persistent"] === true };
      const targets: Array<[string, string]> = [[v["name"] as string, v["url"] as string]];
      if (typeof v["compareUrl"] === "string") targets.push([v["compareName"] as string, v["compareUrl"]]);
      for (const [name, url] of targets) {
        const o = { ...base, url };
        process.stdout.write(`${formatStompResult(name, o, await runStompBench(o))}\n`);
      }
    });
  program
    .command("amqp10")
    .description("AMQP 1.0: one sender → one receiver process on an /amq/queue/:q (v1) address, unsettled or pre-settled")
    .option("--url <url>", "AMQP URL of the broker", "amqp://guest:guest@127.0.0.1:5672")
    .option("-s, --size <bytes>", "message body size", int(1), 16)
    .option("--mode <mode>", "unsettled or settled", "unsettled")
    .option("--credit <n>", "the receiver's link credit", int(1), 1000)
    .option("--window <n>", "unsettled: deliveries awaiting their outcome at most", int(1), 1000)
    .option("-z, --duration <seconds>", "run time", int(1), 5)
    .option("--broker-pid <pid>", "the broker's pid: its CPU per received message is reported", int(1))
    .option("--client <name>", "raw (coney-perf's lean AMQP 1.0 client) or rhea (a devDependency)", "raw")
    .option("--frame-max <bytes>", "the max-frame-size the clients announce: a larger message goes in several transfers (AMQP 1.0's minimum: 512)", int(512), 131072)
    .action(async (v: Record<string, unknown>) => {
      const { runAmqp10Bench, formatAmqp10Result } = await import("./amqp10-bench.js");
      const pid = v["brokerPid"] as number | undefined;
      const client = v["client"];
      if (client !== "raw" && client !== "rhea") throw new InvalidArgumentError(`unknown client ${String(client)}: raw or rhea`);
      const o = { url: v["url"] as string, size: v["size"] as number, mode: v["mode"] === "settled" ? ("settled" as const) : ("unsettled" as const), credit: v["credit"] as number, window: v["window"] as number, durationSeconds: v["duration"] as number, client, frameMax: v["frameMax"] as number, ...(pid === undefined ? {} : { brokerPid: pid }) } as const;
      process.stdout.write(`${formatAmqp10Result(o, await runAmqp10Bench(o))}\n`);
    });
  program
    .command("stream")
    .description("native stream protocol: one publisher with confirms, then one consumer reading from the first offset")
    .option("--url <url>", "stream URL of the broker", "rabbitmq-stream://guest:guest@127.0.0.1:5552/%2F")
    .option("-s, --size <bytes>", "message body size", int(1), 16)
    .option("--batch <n>", "messages per Publish frame", int(1), 100)
    .option("--inflight <n>", "unconfirmed messages at most", int(1), 10_000)
    .option("-z, --duration <seconds>", "run time of each phase", int(1), 5)
    .option("--stream-name <name>", "the stream to create, use and delete (default: a fresh name); under --workers it picks the leading worker")
    .action(async (v: Record<string, unknown>) => {
      const o = { url: v["url"] as string, size: v["size"] as number, batch: v["batch"] as number, inflight: v["inflight"] as number, durationSeconds: v["duration"] as number, streamName: v["streamName"] as string | undefined };
      process.stdout.write(`${formatStreamResult(o, await runStreamBench(o))}\n`);
    });
  program
    .command("sizes")
    .description("1 producer → 1 consumer at each body size, transient and persistent+confirm, with the broker's CPU per message and peak RSS")
    .option("--uri <uri>", "AMQP URI of the broker", d.uri)
    .option("--broker-pid <pid>", "the broker's pid, for CPU and memory", int(1))
    .option("--name <name>", "the broker's column title", "broker")
    .option("--compare-uri <uri>", "a second broker, measured in the same run")
    .option("--compare-pid <pid>", "the second broker's pid", int(1))
    .option("--compare-name <name>", "the second broker's column title", "compare")
    .option("--sizes <list>", "comma-separated body sizes in bytes", "16,1024,16384,65536,262144,1048576")
    .option("--modes <list>", "transient, persistent or both", "transient,persistent")
    .option("-c, --confirm <n>", "persistent mode: unconfirmed publishes per producer", int(1), 256)
    .option("-z, --duration <seconds>", "seconds per run", int(1), 5)
    .option("-r, --repeat <n>", "runs per cell and broker, alternating which goes first; the table shows medians", int(1), 1)
    .option("--client <name>", "the clients' code: amqp-client (@cloudamqp/amqp-client) or raw (coney-perf's lean client)", clientArg, "amqp-client")
    .action(async (v: Record<string, unknown>) => {
      const targets: SweepTarget[] = [{ name: v["name"] as string, uri: v["uri"] as string, pid: v["brokerPid"] as number | undefined }];
      if (v["compareUri"]) targets.push({ name: v["compareName"] as string, uri: v["compareUri"] as string, pid: v["comparePid"] as number | undefined });
      const sizes = (v["sizes"] as string).split(",").map((x) => int(8)(x.trim()));
      const modes = (v["modes"] as string).split(",").map((m): SweepMode => {
        if (m === "transient" || m === "persistent") return m;
        throw new InvalidArgumentError(`unknown mode ${m}: transient or persistent`);
      });
      await runSizeSweep(targets, { sizes, modes, durationSeconds: v["duration"] as number, confirm: v["confirm"] as number, repeat: v["repeat"] as number, client: v["client"] as PerfClient }, (line) => process.stdout.write(`${line}\n`));
    });
  program
    .command("relay")
    .description("the CPU floor under relaying a body: a writer and a reader process over loopback TCP, no broker")
    .option("--sizes <list>", "comma-separated body sizes in bytes", "65536,262144,1048576")
    .option("--frame-max <bytes>", "frame_max of the framed writes", int(4096), 8192)
    .option("--bytes <n>", "bytes sent per measurement", int(1), 2 * 1024 * 1024 * 1024)
    .action(async (v: Record<string, unknown>) => {
      const sizes = (v["sizes"] as string).split(",").map((x) => int(1)(x.trim()));
      await runRelayFloor({ sizes, frameMax: v["frameMax"] as number, bytesPerRun: v["bytes"] as number }, (line) => process.stdout.write(`${line}\n`));
    });
  program
    .command("testing")
    .description("coney/testing: first start with the import, next starts, close, reset with 1,000 queues, memory per idle broker")
    .option("--processes <n>", "fresh processes to measure in", int(1), 5)
    .action(async (v: Record<string, unknown>) => {
      await runTestBrokerBench(v["processes"] as number, (line) => process.stdout.write(`${line}\n`));
    });
  program
    .command("shovel")
    .description("fill a source queue, then time an on-confirm dynamic shovel (src-delete-after queue-length) moving it")
    .requiredOption("--src-uri <uri>", "the source broker, as this process reaches it")
    .option("--shovel-src-uri <uri>", "the source as the shovelling broker reaches it (default: --src-uri)")
    .option("--dest-uri <uri>", "the destination as the shovelling broker reaches it", "amqp://")
    .option("--dest-check-uri <uri>", "the destination as this process reaches it, to count what arrived")
    .option("--http <url>", "management API of the shovelling broker, with credentials", "http://guest:guest@127.0.0.1:15672")
    .option("--vhost <vhost>", "the shovel's vhost", "/")
    .option("-n, --messages <n>", "messages to move", int(1), 20_000)
    .option("-s, --size <bytes>", "message body size", int(0), 1024)
    .option("-q, --prefetch <n>", "src-prefetch-count", int(1), 1000)
    .option("--queue <name>", "the source queue (the destination is <name>-dest)", "coney-perf-shovel")
    .action(async (v: Record<string, unknown>) => {
      const src = v["srcUri"] as string;
      const o = {
        srcUri: src,
        shovelSrcUri: (v["shovelSrcUri"] as string | undefined) ?? src,
        destUri: v["destUri"] as string,
        destCheckUri: (v["destCheckUri"] as string | undefined) ?? null,
        http: v["http"] as string,
        vhost: v["vhost"] as string,
        messages: v["messages"] as number,
        size: v["size"] as number,
        prefetch: v["prefetch"] as number,
        queue: v["queue"] as string,
      };
      process.stdout.write(`${formatShovelResult(o, await runShovelBench(o))}\n`);
    });
  program
    .command("spread")
    .description("a broker of several nodes (coney --workers N, a cluster): aggregate rate, CPU per message over every node, each node's share; a forwarded message against a local one")
    .option("--uri <uri>", "AMQP URI of the broker", d.uri)
    .option("--http <url>", "management API, with credentials", "http://guest:guest@127.0.0.1:15672")
    .option("--queues <n>", "queues, each with one producer and one consumer process", int(1), 8)
    .option("-s, --size <bytes>", "message body size (≥ 8)", int(8), 16)
    .option("-c, --confirm <n>", "publisher confirms, at most n unconfirmed per producer", int(1), 100)
    .option("-q, --prefetch <n>", "consumer prefetch", int(1), 1000)
    .option("-z, --duration <seconds>", "seconds per run", int(1), 5)
    .option("--pair-only", "only the local-against-forwarded pair (no aggregate run)")
    .option("--cluster <n>", "a spread cluster (--cluster-mode spread) of n nodes on a local etcd, started here (spread-cluster-bench.ts)", int(2))
    .option("--node-uris <list>", "a running spread cluster: each node's AMQP URI, comma-separated")
    .option("--node-https <list>", "with --node-uris: each node's management API with credentials, same order")
    .option("--etcd <path>", "--cluster: the etcd binary", "/usr/bin/etcd")
    .option("--etcd-lease-ttl <seconds>", "--cluster: the nodes' etcd lease", int(1), 5)
    .option("--cluster-tls", "--cluster: the nodes' links and replication over TLS (a throw-away certificate made with openssl)")
    .action(async (v: Record<string, unknown>) => {
      const o = { uri: v["uri"] as string, http: v["http"] as string, queues: v["queues"] as number, size: v["size"] as number, confirm: v["confirm"] as number, prefetch: v["prefetch"] as number, durationSeconds: v["duration"] as number, pairOnly: v["pairOnly"] === true };
      const print = (line: string): boolean => process.stdout.write(`${line}\n`);
      const list = (x: unknown): string[] => (typeof x === "string" ? x.split(",").map((s) => s.trim()).filter((s) => s !== "") : []);
      if (v["cluster"] !== undefined || v["nodeUris"] !== undefined) {
        const attach = v["nodeUris"] === undefined ? {} : { attach: { uris: list(v["nodeUris"]), https: list(v["nodeHttps"]) } };
        await runSpreadClusterBench({ ...o, nodes: (v["cluster"] as number | undefined) ?? 0, etcdBin: v["etcd"] as string, leaseTtl: v["etcdLeaseTtl"] as number, clusterTls: v["clusterTls"] === true, ...attach }, print);
        return;
      }
      await runSpreadBench(o, print);
    });
  await program.parseAsync(argv, { from: "user" });
}
