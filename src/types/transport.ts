// How llmgw talks to a host: run a command, write one JSON request to its stdin,
// read its stdout. The SSH implementation lives in src/gather/; tests and the
// rest of llmgw see only this interface.

export interface HostTarget {
  /** Node or router name, used in errors. */
  name: string;
  host: string;
  port: number;
}

export interface Transport {
  /**
   * Run `command` on the host, write `input` to its stdin and close it, and
   * resolve with stdout once the command exits 0. Rejects with SshError
   * (src/errors.ts) carrying the kind of failure; never with anything else.
   */
  run(target: HostTarget, command: string, input: string): Promise<string>;
  /** Close every kept connection. */
  close(): Promise<void>;
}
