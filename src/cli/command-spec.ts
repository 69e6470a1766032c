/**
 * The shape of one coneyctl command: its rabbitmqctl name, usage line, how many positional
 * arguments it takes, its own options, its banner and what it does.
 */
import type { Command } from "commander";
import type { ManagementApi } from "./management-api.js";
import type { Output } from "./output.js";

export type HelpSection = "users" | "access control" | "virtual hosts" | "queues" | "monitoring" | "policies" | "definitions" | "node" | "help";

export interface CommandContext {
  readonly args: string[];
  /** The command's own options plus the global ones, as commander parsed them. */
  readonly opts: Record<string, unknown>;
  /** -p / --vhost, "/" when not given (rabbitmqctl's default). */
  readonly vhost: string;
  readonly api: ManagementApi;
  readonly out: Output;
  /** Reads all of standard input; null when it is a terminal or empty. */
  readonly readStdin: () => Promise<string | null>;
}

/** rabbitmqctl's validation failures: a usage problem (64) or a bad argument value (65). */
export interface ValidationFailure {
  readonly exitCode: 64 | 65;
  readonly message: string;
}

export const badArgument = (detail: string): ValidationFailure => ({ exitCode: 65, message: `Bad argument: ${detail}` });

export const badInfoKeys = (keys: readonly string[]): ValidationFailure => ({ exitCode: 64, message: `Info key(s) ${keys.join(",")} are not supported` });

export interface CommandSpec {
  readonly name: string;
  /** rabbitmqctl's usage text without the tool name, e.g. "set_permissions [--vhost <vhost>] <username> <conf> <write> <read>". */
  readonly usage: string;
  readonly description: string;
  readonly section: HelpSection;
  readonly minArgs: number;
  /** Infinity for commands taking columns or tags. */
  readonly maxArgs: number;
  /** Adds the command's own options (e.g. --priority) to its commander Command. */
  readonly options?: (cmd: Command) => void;
  /** Validation beyond the argument count (columns, values), before anything is sent. */
  readonly validate?: (args: string[], opts: Record<string, unknown>) => ValidationFailure | null;
  readonly banner?: (ctx: CommandContext) => string | readonly string[] | null;
  readonly run: (ctx: CommandContext) => Promise<void>;
}
