/** A broker with its Prometheus listener on an ephemeral port, and a scraper for it. */
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import type { StartOptions } from "../../src/start-broker.js";
import { parseExposition, samplesOf, type ParsedFamily } from "./exposition-parser.js";

export interface MetricsBroker extends TestBroker {
  readonly metricsUrl: string;
  /** GET a path on the metrics port; throws unless 200. */
  scrapeText(path?: string): Promise<string>;
  scrape(path?: string): Promise<ParsedFamily[]>;
}

export async function startMetricsBroker(options: StartOptions = {}): Promise<MetricsBroker> {
  const broker = await startTestBroker({ prometheusPort: 0, ...options });
  const metricsUrl = `http://127.0.0.1:${broker.prometheusPort}`;
  const scrapeText = async (path = "/metrics"): Promise<string> => {
    const res = await fetch(`${metricsUrl}${path}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    return res.text();
  };
  return { ...broker, metricsUrl, scrapeText, scrape: async (path = "/metrics") => parseExposition(await scrapeText(path)) };
}

/** The value of the one sample named `name` whose labels include `labels` (throws unless exactly one). */
export function valueOf(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number {
  const matching = samplesOf(families, name).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matching.length !== 1) throw new Error(`${name}${JSON.stringify(labels)}: ${matching.length} samples`);
  return matching[0]!.value;
}
