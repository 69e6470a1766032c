/**
 * Serves the web management UI (the bundle `npm run build` writes to dist/src/ui/www) at `/` on
 * the management listener. The UI is static files that talk only to the public /api, so this
 * module owns nothing but file serving and the security headers: a strict Content-Security-Policy
 * (no inline script or style, no third-party origin: every asset is served by Coney), no framing,
 * no referrer, no MIME sniffing. Precompressed .br/.gz siblings are served when the client
 * accepts them; hashed asset names are cached for good, index.html is always revalidated.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import fastifyStatic from "@fastify/static";

export const UI_ROOT = fileURLToPath(new URL("./www/", import.meta.url));

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Asset names carry a content hash (`app-ABCD1234.js`, and its .br/.gz): such a URL never changes content. */
const HASHED = /-[A-Z0-9]{8}\.(js|css)(\.br|\.gz)?$/;

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

export async function registerUi(app: FastifyInstance, root: string = UI_ROOT): Promise<void> {
  if (!existsSync(root)) {
    // tsc alone does not build the bundle; say how instead of answering a bare 404.
    app.get("/", (_req, reply) => reply.code(503).type("text/plain").headers(SECURITY_HEADERS).send("The web UI is not built: run `npm run build`.\n"));
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: "/",
    // Routes are made for the files present at start-up; every other path keeps the API's JSON 404.
    wildcard: false,
    preCompressed: true,
    index: false,
    serveDotFiles: false,
    cacheControl: false,
    setHeaders: (reply, path) => {
      reply.headers(SECURITY_HEADERS);
      reply.header("cache-control", HASHED.test(path) ? "public, max-age=31536000, immutable" : "no-cache");
    },
  });
  // With wildcard off the plugin routes each file by its own name; the UI's address is "/".
  app.get("/", (_req, reply) => reply.sendFile("index.html"));
}
