#!/usr/bin/env node
// Builds the web UI bundle (run by `npm run build` after tsc): esbuild bundles app/main.ts and
// app/style.css (with uPlot's stylesheet) into content-hashed files under dist/src/ui/www, writes
// index.html pointing at them, and stores a .br and .gz copy of each text asset so the server
// sends compressed bytes without compressing per request.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const app = join(here, "app");
const out = join(repo, "dist", "src", "ui", "www");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: { app: join(app, "main.ts"), style: join(app, "style.css") },
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  outdir: out,
  entryNames: "[name]-[hash]",
  metafile: true,
  legalComments: "none",
  sourcemap: false,
  logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const script = outputs.find((f) => f.startsWith("app-") && f.endsWith(".js"));
const style = outputs.find((f) => f.startsWith("style-") && f.endsWith(".css"));
if (!script || !style) throw new Error(`UI build: missing outputs in ${outputs.join(", ")}`);

const index = readFileSync(join(app, "index.html"), "utf8").replace("%SCRIPT%", script).replace("%STYLE%", style);
writeFileSync(join(out, "index.html"), index);
copyFileSync(join(app, "favicon.svg"), join(out, "favicon.svg"));

let raw = 0;
let gz = 0;
for (const name of readdirSync(out)) {
  if (!/\.(js|css|html|svg)$/.test(name)) continue;
  const body = readFileSync(join(out, name));
  const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  const gzip = gzipSync(body, { level: 9 });
  writeFileSync(join(out, `${name}.br`), br);
  writeFileSync(join(out, `${name}.gz`), gzip);
  raw += body.length;
  gz += gzip.length;
}
if (process.argv.includes("--report")) console.log(`UI bundle: ${(raw / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzip`);
