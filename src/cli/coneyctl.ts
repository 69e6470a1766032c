/**
 * The `coneyctl` program: parses rabbitmqctl's command line with commander, validates arguments
 * the way rabbitmqctl does (exit 64 and the usage line), prints the banner, runs the command
 * against the management API and turns its failure into rabbitmqctl's exit code and message.
 * Returns the exit code; the launcher in bin/ sets it.
 */
import { Command, CommanderError, Option } from "commander";
import type { CommandContext, CommandSpec, ValidationFailure } from "./command-spec.js";
import { ALL_COMMANDS } from "./commands/index.js";
import { resolveConnection, type ConnectionFlags } from "./connection-options.js";
import { CliError, EXIT } from "./exit-codes.js";
import { ManagementApi } from "./management-api.js";
import { ManagementClient } from "./management-client.js";
import { Output, type Formatter, type Streams } from "./output.js";
import { allUsage, baseUsage, commandUsage, TOOL } from "./usage-text.js";

export interface CliIo extends Streams {
  readonly env: NodeJS.ProcessEnv;
  readonly readStdin: () => Promise<string | null>;
}

interface Parsed {
  spec: CommandSpec;
  args: string[];
  opts: Record<string, unknown>;
}

function buildProgram(onCommand: (p: Parsed) => void): Command {
  const program = new Command(TOOL)
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .helpOption(false)
    .helpCommand(false)
    .option("--host <host>")
    .option("--port <port>")
    .option("--username <username>")
    .option("--password <password>")
    .option("-n, --node <node>")
    .option("--use-tls")
    .option("--cacertfile <file>")
    .option("--certfile <file>")
    .option("--keyfile <file>")
    .option("--insecure")
    .option("-p, --vhost <vhost>")
    .option("-q, --quiet")
    .option("-s, --silent")
    .option("--no-table-headers")
    .addOption(new Option("--formatter <formatter>").choices(["table", "json", "pretty_table"]))
    .option("-t, --timeout <seconds>")
    .option("-l, --longnames")
    .option("-h, --help");
  for (const spec of ALL_COMMANDS) {
    const cmd = program.command(spec.name).argument("[args...]").helpOption(false);
    spec.options?.(cmd);
    cmd.action((args: string[], _o: unknown, c: Command) => onCommand({ spec, args, opts: c.optsWithGlobals() }));
  }
  return program;
}

function validationMessage(failure: ValidationFailure, argv: readonly string[], spec: CommandSpec): string {
  return `Error (argument validation): ${failure.message}\nArguments given:\n\t${argv.join(" ")}\n${baseUsage(spec)}\n`;
}

function validate(spec: CommandSpec, args: string[], opts: Record<string, unknown>): ValidationFailure | null {
  if (args.length < spec.minArgs) return { exitCode: EXIT.usage, message: "not enough arguments." };
  if (args.length > spec.maxArgs) return { exitCode: EXIT.usage, message: "too many arguments." };
  return spec.validate?.(args, opts) ?? null;
}

export async function runConeyctl(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: Parsed | undefined;
  const program = buildProgram((p) => (parsed = p));
  const named = ALL_COMMANDS.find((s) => argv.includes(s.name));
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.code === "commander.unknownCommand" || !named) {
      const unknown = /unknown command '([^']*)'/.exec(err.message)?.[1];
      io.err((unknown ? `\nCommand '${unknown}' not found. \n` : "") + allUsage(ALL_COMMANDS));
      return EXIT.usage;
    }
    const detail = err.message.replace(/^error: /, "");
    io.err(validationMessage({ exitCode: EXIT.usage, message: `Invalid options for this command:\n${detail}` }, argv, named));
    return EXIT.usage;
  }
  if (!parsed) {
    // No command at all: rabbitmqctl prints its usage; with --help that is a success.
    const help = program.opts()["help"] === true;
    (help ? io.out : io.err)(allUsage(ALL_COMMANDS));
    return help ? EXIT.ok : EXIT.usage;
  }
  const { spec, args, opts } = parsed;
  if (opts["help"] === true) {
    io.out(commandUsage(spec));
    return EXIT.ok;
  }
  const failure = validate(spec, args, opts);
  if (failure) {
    io.err(validationMessage(failure, argv, spec));
    return failure.exitCode;
  }
  const formatter: Formatter = opts["formatter"] === "json" ? "json" : "table";
  const out = new Output(
    { quiet: opts["quiet"] === true, silent: opts["silent"] === true, tableHeaders: opts["tableHeaders"] !== false, formatter },
    io,
  );
  try {
    let connection;
    try {
      connection = resolveConnection(opts as ConnectionFlags, io.env);
    } catch (e) {
      throw new CliError(e instanceof RangeError ? EXIT.usage : EXIT.dataErr, (e as Error).message);
    }
    const ctx: CommandContext = {
      args,
      opts,
      vhost: typeof opts["vhost"] === "string" ? opts["vhost"] : "/",
      api: new ManagementApi(new ManagementClient(connection)),
      out,
      readStdin: io.readStdin,
    };
    out.banner(spec.banner?.(ctx) ?? null);
    await spec.run(ctx);
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    out.error(e.message);
    return e.exitCode;
  }
}
