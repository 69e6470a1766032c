/**
 * rabbitmqctl's exit codes (sysexits, as RabbitMQ's CLI uses them) and the one error type a
 * command throws to stop with a code and a message. Nothing else decides an exit code.
 */
export const EXIT = {
  ok: 0,
  /** Argument validation: not enough / too many arguments, unknown option. */
  usage: 64,
  /** Bad data: an unknown vhost named by a list command, a bad file. */
  dataErr: 65,
  /** An unknown user. */
  noUser: 67,
  /** The broker unreachable, or any other error the broker reported. */
  unavailable: 69,
  /** rabbitmqctl's "software" error: e.g. add_user of a user that exists. */
  software: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure that ends the command: `message` goes to stderr after rabbitmqctl's "Error:" line. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

/** Argument validation failure: rabbitmqctl prints its own header and the command's usage line. */
export class UsageError extends Error {}
