import { NotImplementedError } from '../../errors.js';
import type { Io } from '../io.js';

export async function run(_argv: string[], _io: Io): Promise<number> {
  throw new NotImplementedError('`llmgw status` is not implemented yet');
}
