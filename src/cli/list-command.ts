/**
 * The list_* commands all work alike: fetch records, pick columns (those asked for, or the
 * command's defaults), print them as a table. Commands with fixed columns take no arguments.
 */
import type { CommandContext, CommandSpec, HelpSection } from "./command-spec.js";
import { requestedColumns, rowsOf, validateColumns, type ColumnTable, type Item } from "./list-columns.js";

export interface ListCommandInput {
  readonly name: string;
  readonly usage: string;
  readonly description: string;
  readonly section: HelpSection;
  readonly columns: ColumnTable;
  /** Shown when no columns are asked for; every column when absent. */
  readonly defaults?: readonly string[];
  /** rabbitmqctl's list_permissions, list_users, … take no column arguments. */
  readonly fixedColumns?: boolean;
  readonly minArgs?: number;
  readonly banner: (ctx: CommandContext) => string | readonly string[];
  readonly fetch: (ctx: CommandContext) => Promise<Item[]>;
}

export function listCommand(input: ListCommandInput): CommandSpec {
  const defaults = input.defaults ?? Object.keys(input.columns);
  const minArgs = input.minArgs ?? 0;
  return {
    name: input.name,
    usage: input.usage,
    description: input.description,
    section: input.section,
    minArgs,
    maxArgs: input.fixedColumns ? minArgs : Infinity,
    ...(input.fixedColumns ? {} : { validate: validateColumns(input.columns) }),
    banner: input.banner,
    async run(ctx) {
      const columns = input.fixedColumns ? [...defaults] : requestedColumns(ctx.args, defaults);
      ctx.out.table(columns, rowsOf(await input.fetch(ctx), columns, input.columns));
    },
  };
}
