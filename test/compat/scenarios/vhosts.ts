// Vhosts: create, update (tags kept when not given), delete, limits, errors.
import { del, get, put, type Scenario } from "../scenario.js";

const V = "compat-vh";

export const scenarios: Scenario[] = [
  {
    name: "vhosts: create, update, delete",
    cleanup: [del(`/api/vhosts/${V}`)],
    steps: [
      put(`/api/vhosts/${V}`, { description: "first", tags: "a,b" }),
      get(`/api/vhosts/${V}`, { exact: ["name", "description", "tags", "metadata", "tracing"] }),
      put(`/api/vhosts/${V}`, { description: "second" }),
      get(`/api/vhosts/${V}`, { exact: ["name", "description", "tags", "metadata", "tracing"] }),
      put(`/api/vhosts/${V}`, { tags: ["c"] }),
      get(`/api/vhosts/${V}`, { exact: ["name", "description", "tags", "metadata"] }),
      put(`/api/vhosts/${V}`, {}),
      get(`/api/vhosts/${V}`, { exact: ["name", "description", "tags", "metadata"] }),
      get(`/api/vhosts/${V}/permissions`, { exact: ["*"] }),
      put(`/api/vhosts/${V}`, { default_queue_type: "nonsense" }),
      del(`/api/vhosts/${V}`),
      del(`/api/vhosts/${V}`),
      get(`/api/vhosts/${V}`),
      get(`/api/vhosts/${V}/permissions`),
    ],
  },
  {
    name: "vhost limits",
    setup: [put(`/api/vhosts/${V}-l`, {})],
    cleanup: [del(`/api/vhosts/${V}-l`)],
    steps: [
      put(`/api/vhost-limits/${V}-l/max-queues`, { value: 10 }),
      put(`/api/vhost-limits/${V}-l/max-connections`, { value: "3" }),
      get(`/api/vhost-limits/${V}-l`, { exact: ["*"] }),
      put(`/api/vhost-limits/${V}-l/max-bananas`, { value: 1 }),
      put(`/api/vhost-limits/${V}-l/max-queues`, {}),
      put(`/api/vhost-limits/${V}-l/max-queues`, { value: "lots" }),
      put(`/api/vhost-limits/compat-no-such-vhost/max-queues`, { value: 1 }),
      del(`/api/vhost-limits/${V}-l/max-queues`),
      get(`/api/vhost-limits/${V}-l`, { exact: ["*"] }),
      get(`/api/vhost-limits/compat-no-such-vhost`),
    ],
  },
];
