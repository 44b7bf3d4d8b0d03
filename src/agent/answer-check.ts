// The answer check (docs/protocol.md#the-answer-check): a replica whose health answers 200 is
// asked a real question, and its answer must match `expect`. An engine with the
// wrong chat template or corrupt weights answers /health all the same.
//
// The agent is a short-lived process per SSH call, so a check is one attempt per
// report, bounded by a short timeout; all replicas are checked in parallel.
// A replica that has passed is re-checked at most once per interval, so a
// report per tick stays cheap for the engines and bounded in time.

import type { AnswerCheck, CheckResult } from '../types/snapshot.js';
import type { AgentEnv } from './env.js';
import { askChat, chatBody, chatUrl } from './chat-probe.js';
import { QUOTE_MAX_CHARS, cleanText, quoteText } from './quote.js';
import { compileBounded, type BoundedPattern } from '../util/bounded-pattern.js';

/** One attempt's bound; `LLMGW_AGENT_CHECK_ATTEMPT_TIMEOUT` (seconds, at most 30) overrides. */
export const CHECK_ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ATTEMPT_TIMEOUT_MS = 30_000;
/** A passing replica is asked again once its last answer is this old; `LLMGW_AGENT_CHECK_INTERVAL` (seconds) overrides. */
export const CHECK_INTERVAL_MS = 30_000;

export interface CheckSettings {
  attemptMs: number;
  intervalMs: number;
}

function seconds(env: AgentEnv, name: string, fallbackMs: number, maxMs = Infinity): number {
  const raw = env[name];
  const s = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isFinite(s) && s >= 0 ? Math.min(s * 1000, maxMs) : fallbackMs;
}

export function checkSettings(env: AgentEnv): CheckSettings {
  return {
    attemptMs: seconds(env, 'LLMGW_AGENT_CHECK_ATTEMPT_TIMEOUT', CHECK_ATTEMPT_TIMEOUT_MS, MAX_ATTEMPT_TIMEOUT_MS),
    intervalMs: seconds(env, 'LLMGW_AGENT_CHECK_INTERVAL', CHECK_INTERVAL_MS),
  };
}

/**
 * The check's pattern, or why it is not one (g and y are refused: `test` would
 * then depend on the last call). It must be a JavaScript RegExp (what the
 * protocol promises) and compile for RE2 too, which matches it: the answer is
 * an engine's text and the pattern a pull request's, and neither may make a
 * report spin (a backtracking `^(a+)+$` does).
 */
export function compileExpect(check: Pick<AnswerCheck, 'expect' | 'flags'>): BoundedPattern | string {
  const flags = check.flags ?? '';
  if (!/^[dimsuv]*$/.test(flags)) return `check.flags ${JSON.stringify(flags)} may only hold d, i, m, s, u, v`;
  try {
    new RegExp(check.expect, flags);
  } catch (err) {
    return `check.expect is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`;
  }
  const bounded = compileBounded(check.expect, flags);
  return bounded.ok ? bounded.pattern : `check.expect ${describeExpect(check)}: ${bounded.error}`;
}

/** `/ready/i` as written in messages, the operator's own text but still made safe to print. */
export function describeExpect(check: Pick<AnswerCheck, 'expect' | 'flags'>): string {
  return `/${cleanText(check.expect, QUOTE_MAX_CHARS)}/${check.flags ?? ''}`;
}

/**
 * Ask once and judge. The answer is matched in full (it is at most
 * MAX_ANSWER_BYTES) but quoted only cut and cleaned: it is the engine's text.
 */
export async function runCheck(target: { endpoint: string; model: string; check: AnswerCheck }, at: Date, timeoutMs: number): Promise<CheckResult> {
  const when = at.toISOString();
  const expect = compileExpect(target.check);
  if (typeof expect === 'string') return { ok: false, at: when, error: expect };
  const outcome = await askChat(chatUrl(target.endpoint), chatBody(target.model, target.check.prompt), timeoutMs);
  if (outcome.kind === 'problem') return { ok: false, at: when, error: outcome.detail };
  if (expect.test(outcome.content)) return { ok: true, at: when };
  return { ok: false, at: when, error: `expected ${describeExpect(target.check)}, got ${quoteText(outcome.content)}` };
}
