// What the stub engine says. A stub that answers the answer check as a healthy
// engine would: asked to "reply with the word X", it replies X; otherwise a fixed
// greeting, or `--answer TEXT`. `--wrong` makes it answer every prompt with the
// same wrong text (an engine with a broken chat template), for the check to catch.

export const DEFAULT_ANSWER = 'Hello from the llmgw stub engine.';
/** What a wrong engine says: no word of a likely check in it. */
export const WRONG_ANSWER = 'Lorem ipsum dolor sit amet (a wrong answer from the llmgw stub engine).';

/** The prompt as one text, as a chat template would flatten it: `role\0content\0` per message, or the completion's prompt. */
export function promptText(body: Record<string, unknown>): string {
  const messages = body['messages'];
  if (Array.isArray(messages)) {
    let out = '';
    for (const m of messages) {
      if (typeof m !== 'object' || m === null) continue;
      const { role, content } = m as { role?: unknown; content?: unknown };
      out += `${typeof role === 'string' ? role : ''}\u0000${contentText(content)}\u0000`;
    }
    return out;
  }
  const prompt = body['prompt'];
  if (typeof prompt === 'string') return prompt;
  return Array.isArray(prompt) ? prompt.map(String).join('\u0000') : '';
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
    .join('');
}

/** The last user message's text (or the completion's prompt). */
function lastUserText(body: Record<string, unknown>): string {
  const messages = body['messages'];
  if (Array.isArray(messages)) {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as { role?: unknown; content?: unknown } | null;
      if (m && typeof m === 'object' && m.role === 'user') return contentText(m.content);
    }
    return '';
  }
  return typeof body['prompt'] === 'string' ? body['prompt'] : '';
}

export interface AnswerKnobs {
  answer: string | null;
  wrong: boolean;
}

/** The answer's text for a request. */
export function answerFor(body: Record<string, unknown>, knobs: AnswerKnobs): string {
  if (knobs.wrong) return WRONG_ANSWER;
  if (knobs.answer !== null) return knobs.answer;
  const asked = /reply with (?:only )?the word\s+["'`]?([^\s"'`.,!?;:]+)/i.exec(lastUserText(body));
  return asked?.[1] ?? DEFAULT_ANSWER;
}

/** Words with their leading space, as tokens stream: "Hello", " from", " the". At most `max` of them. */
export function tokensOf(text: string, max: number | null): string[] {
  const tokens = text.match(/\s*\S+/g) ?? [text];
  return max !== null && max >= 0 ? tokens.slice(0, Math.max(1, max)) : tokens;
}
