/** `help` and `help <command>`, as rabbitmqctl: the command list, or one command's usage. */
import type { CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { allUsage, commandUsage } from "../usage-text.js";

export function helpCommand(all: () => readonly CommandSpec[]): CommandSpec {
  return {
    name: "help",
    usage: "help [<command>]",
    description: "Displays usage information for a command",
    section: "help",
    minArgs: 0,
    maxArgs: 1,
    async run({ args, out }) {
      if (args.length === 0) {
        out.raw(allUsage(all()));
        return;
      }
      const spec = all().find((s) => s.name === args[0]);
      if (!spec) throw new CliError(EXIT.usage, `Command '${args[0]}' not found.`);
      out.raw(commandUsage(spec));
    },
  };
}
