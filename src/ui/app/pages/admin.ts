/**
 * Admin: the entry to users, virtual hosts, policies, limits and cluster settings. The Admin
 * sub-pages (and their routes) belong to the ui-admin work; this page lists where they go.
 */
import { html } from "../html.js";

export function AdminPage() {
  return html`<h1>Admin</h1>
    <p class="muted">Users, virtual hosts, permissions, policies, limits and cluster settings.</p>`;
}
