/**
 * The frame around every page: the header (product, node, who is logged in, log out), the main
 * navigation, the virtual-host selector that narrows every list, and the refresh control.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { hasTag, useApp } from "../app-context.js";
import { html } from "../html.js";
import { NAV } from "../routes.js";
import { href } from "../router.js";

const REFRESH_CHOICES: ReadonlyArray<[number, string]> = [
  [1000, "every 1 s"],
  [2000, "every 2 s"],
  [5000, "every 5 s"],
  [10000, "every 10 s"],
  [30000, "every 30 s"],
  [0, "paused"],
];

export function Layout({ section, title, children, onRefresh }: { section: string; title: string; children: ComponentChildren; onRefresh: (ms: number) => void }) {
  const app = useApp();
  const [vhosts, setVhosts] = useState<string[]>([]);
  const [cluster, setCluster] = useState("");
  useEffect(() => {
    app.api.get<Array<{ name: string }>>("/vhosts", { columns: "name" }).then((v) => setVhosts(v.map((x) => x.name)), () => setVhosts([]));
    app.api.get<{ name: string }>("/cluster-name").then((c) => setCluster(c.name), () => setCluster(""));
  }, [app.api]);

  // The shell is where focus goes after navigation (main.ts): the start of the page.
  return html`<div class="shell" id="top" tabindex="-1">
    <p class="sr-only" aria-live="polite">${title}</p>
    <a class="skip" href="#main" onClick=${(e: Event) => {
      // The hash is the router's: move focus to the content without navigating.
      e.preventDefault();
      document.getElementById("main")?.focus();
    }}>Skip to content</a>
    <header class="top">
      <a class="brand" href="#/"><img src="favicon.svg" alt="" width="24" height="24" /> Coney</a>
      ${cluster ? html`<span class="cluster" title="Cluster name">${cluster}</span>` : null}
      <div class="top-tools">
        <label>Virtual host <select name="vhost" value=${app.vhost} onChange=${(e: Event) => app.setVhost((e.target as HTMLSelectElement).value)}>
          <option value="">All</option>
          ${vhosts.map((v) => html`<option value=${v}>${v}</option>`)}
        </select></label>
        <label>Refresh <select name="refresh" value=${app.refreshMs} onChange=${(e: Event) => onRefresh(Number((e.target as HTMLSelectElement).value))}>
          ${REFRESH_CHOICES.map(([ms, label]) => html`<option value=${ms}>${label}</option>`)}
        </select></label>
        <span class="who" title=${`Tags: ${app.tags.join(", ") || "none"}`}>${app.user}</span>
        <button type="button" class="link" onClick=${app.logout}>Log out</button>
      </div>
    </header>
    <nav class="main-nav" aria-label="Main">
      ${NAV.filter((n) => !n.tags || hasTag(app.tags, ...n.tags)).map(
        (n) => html`<a href=${href(...n.path.split("/").filter(Boolean))} class=${n.section === section ? "active" : ""} aria-current=${n.section === section ? "page" : undefined}>${n.label}</a>`,
      )}
    </nav>
    <main id="main" tabindex="-1">${children}</main>
  </div>`;
}
