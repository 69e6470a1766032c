/**
 * How RabbitMQ's texts render a JSON value they quote (Erlang's ~p of the decoded term):
 * strings are binaries (<<"x">>), objects are proplists, numbers and atoms as they are. Used
 * where a client may match on RabbitMQ's exact wording ("should be a number, actually was …").
 */
export function erlangTerm(v: unknown): string {
  if (typeof v === "string") return `<<"${v}">>`;
  if (Array.isArray(v)) return `[${v.map(erlangTerm).join(",")}]`;
  if (v !== null && typeof v === "object") return `[${Object.entries(v).map(([k, x]) => `{<<"${k}">>,${erlangTerm(x)}}`).join(",")}]`;
  if (v === null) return "null";
  return String(v);
}
