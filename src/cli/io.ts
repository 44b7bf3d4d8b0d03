// What a command gets from the process, passed in so tests can run commands in-process.

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** --debug: print stack traces. */
  debug: boolean;
}

/** A command takes its own argv (after the command name) and returns the exit code. */
export type CommandRun = (argv: string[], io: Io) => Promise<number>;
