// The web UI on a cluster, in headless Chromium: the overview shows the leader's own node figures
// (not another node's partial record) and a table of every node with its state and role; after a
// follower is killed it shows as stopped and not in sync. Reached through a follower's port, as
// a user with any node's address would.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "puppeteer-core";
import { TestCluster, type NodeInfo } from "./cluster-fixture.js";
import { launchBrowser, openPage } from "../ui/browser.js";
import { login, textOf, waitText } from "../ui/ui-session.js";

describe("web UI on a cluster", { timeout: 100_000 }, () => {
  const cluster = new TestCluster(3);
  let browser: Browser;
  before(async () => {
    await cluster.start();
    await cluster.waitForInSync(3);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await cluster.close();
  });

  it("lists every node with its role on the overview, and the leader's own figures", async () => {
    const leader = await cluster.waitForLeader();
    const [via, other] = cluster.nodes.filter((n) => n !== leader) as [NodeInfo, NodeInfo];
    const { page, problems, shot } = await openPage(browser);
    await login(page, `http://127.0.0.1:${via.httpPort}`, "guest", "guest");
    await waitText(page, "table[aria-label='Cluster nodes']", leader.name);
    const table = await textOf(page, "table[aria-label='Cluster nodes'] tbody tr");
    for (const n of cluster.nodes) assert.match(table, new RegExp(`${n.name}running${n === leader ? "leader" : "follower"}yes`));
    // The node section is the leader's (it answers the API for the whole cluster).
    await waitText(page, "table[aria-label='Node']", leader.name);
    await cluster.kill(other);
    await waitText(page, "table[aria-label='Cluster nodes'] tbody tr", `${other.name}stoppedfollowerno`, 30_000);
    await shot("cluster-overview", true);
    assert.deepEqual(problems, []);
  });
});
