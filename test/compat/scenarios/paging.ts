// List queries: paging envelope, filters, sorting, columns, and the paging errors.
import { get, put, vhostFixture, type Scenario } from "../scenario.js";

const V = "compat-paging";
const v = vhostFixture(V);

export const scenarios: Scenario[] = [
  {
    name: "paging, filters and their errors",
    setup: [...v.setup, ...["pa", "pb", "pc", "xd", "xe"].map((n) => put(`/api/queues/${V}/${n}`, {}))],
    cleanup: v.cleanup,
    steps: [
      get(`/api/queues/${V}?page=1&page_size=2`, { exact: ["filtered_count", "item_count", "page", "page_count", "page_size", "total_count", "items.*.name"] }),
      get(`/api/queues/${V}?page=3&page_size=2`, { exact: ["filtered_count", "item_count", "page", "page_count", "page_size", "total_count", "items.*.name"] }),
      get(`/api/queues/${V}?page=1&name=p`, { exact: ["filtered_count", "item_count", "total_count", "items.*.name"] }),
      get(`/api/queues/${V}?page=1&name=%5Ex&use_regex=true`, { exact: ["filtered_count", "items.*.name"] }),
      get(`/api/queues/${V}?sort=name&sort_reverse=true&columns=name,vhost`, { exact: ["*"] }),
      get(`/api/exchanges/${V}?page=1&page_size=3&columns=name,type`, { exact: ["*"] }),
      get(`/api/queues/${V}?page=0`),
      get(`/api/queues/${V}?page=-1`),
      get(`/api/queues/${V}?page=x`),
      get(`/api/queues/${V}?page=1&page_size=600`),
      get(`/api/queues/${V}?page=1&page_size=0`),
      get(`/api/queues/${V}?page=9&page_size=2`),
      get(`/api/queues/${V}?page=2&name=nomatch`),
      get(`/api/vhosts?page=1&name=compat-paging`, { exact: ["filtered_count", "items.*.name"] }),
    ],
  },
];
