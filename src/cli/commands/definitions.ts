/**
 * export_definitions / import_definitions, rabbitmqctl's way: "-" (or, for import, no argument)
 * means standard output / input, and then no banner is printed so the JSON stays clean.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { writeFileAtomicSync } from "../../store/atomic-file.js";
import type { CommandSpec } from "../command-spec.js";
import { badArgument } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { ManagementClient } from "../management-client.js";

const DEFINITIONS = ManagementClient.path("definitions");
const toStdio = (args: readonly string[]): boolean => args.length === 0 || args[0] === "-";

/** A file error in rabbitmqctl's words. */
function fileError(err: unknown, file: string, verb: "read from" | "write to"): CliError {
  const code = (err as { code?: string }).code;
  const text: Record<string, string> = {
    ENOENT: `Parent directory or file ${file} does not exist`,
    ENOTDIR: `Parent directory of file ${file} is not a directory`,
    EACCES: `No permissions to ${verb} file ${file} or its parent directory`,
    EISDIR: `Path ${file} is a directory`,
    ENOSPC: `No space left on device hosting ${file}`,
  };
  return new CliError(EXIT.dataErr, text[code ?? ""] ?? `Could not ${verb} file ${file}: ${(err as Error).message}`);
}

const exportDefinitions: CommandSpec = {
  name: "export_definitions",
  usage: 'export_definitions <file_path | "-">',
  description: "Exports definitions in JSON",
  section: "definitions",
  minArgs: 1,
  maxArgs: 1,
  validate: ([file]) => {
    if (file === "-") return null;
    const dir = dirname(file!);
    return existsSync(dir) ? null : badArgument(`Directory ${dir} does not exist`);
  },
  banner: ({ args }) => (toStdio(args) ? null : `Exporting definitions in JSON to a file at "${args[0]}" ...`),
  async run({ api, out, args }) {
    const text = JSON.stringify(await api.get<unknown>(DEFINITIONS));
    if (toStdio(args)) {
      out.raw(text + "\n");
      return;
    }
    try {
      writeFileAtomicSync(resolve(args[0]!), text);
    } catch (err) {
      throw fileError(err, args[0]!, "write to");
    }
    out.done();
  },
};

const importDefinitions: CommandSpec = {
  name: "import_definitions",
  usage: "import_definitions <file_path | \"-\">",
  description: "Imports definitions in JSON from a file or standard input",
  section: "definitions",
  minArgs: 0,
  maxArgs: 1,
  validate: ([file]) => (file === undefined || file === "-" || existsSync(file) ? null : badArgument(`File ${file} does not exist`)),
  banner: ({ args }) => (toStdio(args) ? null : `Importing definitions in JSON from a file at "${args[0]}" ...`),
  async run({ api, out, args, readStdin }) {
    let text: string | null;
    if (toStdio(args)) {
      text = await readStdin();
      if (text === null) throw new CliError(EXIT.dataErr, "No definitions were given on standard input");
    } else {
      try {
        text = readFileSync(args[0]!, "utf8");
      } catch (err) {
        throw fileError(err, args[0]!, "read from");
      }
      if (text.length === 0) throw new CliError(EXIT.dataErr, `File ${args[0]} is zero-sized`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new CliError(EXIT.dataErr, `Failed to deserialise input (format: JSON) (error: ${(e as Error).message})`);
    }
    api.expectOk(await api.send("POST", DEFINITIONS, { body }));
    // Coney's import has finished when the API answers (RabbitMQ's may still be running).
    if (!toStdio(args)) out.info("Successfully imported definitions.");
    else out.done();
  },
};

export const DEFINITION_COMMANDS: readonly CommandSpec[] = [exportDefinitions, importDefinitions];
