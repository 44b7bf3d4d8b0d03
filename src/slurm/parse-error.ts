// What Slurm's output could not be read as: one line, for the view's `error`.

export class SlurmParseError extends Error {
  override name = 'SlurmParseError';
}

/** JSON of `command`'s stdout as an object, or a SlurmParseError saying what came back. */
export function parseJsonObject(command: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new SlurmParseError(`\`${command}\` gave output that is not JSON (Slurm 22.05 or later has --json)`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new SlurmParseError(`\`${command}\` gave JSON that is not an object`);
  return v as Record<string, unknown>;
}

export function objectAt(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
