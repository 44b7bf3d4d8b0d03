import { LlmgwError } from '../errors.js';

/** The router cannot start or its admin socket cannot be reached: one line, exit 1. */
export class RouterError extends LlmgwError {
  override name = 'RouterError';
}
