// Node reports a failed system call as an Error with a string `code` (ENOENT,
// EPERM, ECONNREFUSED). A catch clause holds `unknown`: this reads the code
// without a cast, and answers undefined for anything that is not such an error.

/** The errno-style `code` of a caught value (`'ENOENT'`), or undefined when it has none. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = err.code;
  return typeof code === 'string' ? code : undefined;
}
