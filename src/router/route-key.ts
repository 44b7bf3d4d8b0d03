// The routing key of a request for `routing: prefix` (docs/operations.md#how-it-routes): the
// `x-session-id` header, else the body's `user`, else the first 512 characters of
// the prompt (chat: its messages in order; completions: `prompt`; embeddings:
// `input`). It reads the body the router has already parsed to find `model`, so
// keying costs no second parse: only a walk over the first few messages.

import { hash32 } from './hash.js';

/** How much of the prompt keys a request: a shared system prompt or a conversation's opening. */
export const PROMPT_KEY_CHARS = 512;

/** The key's 32-bit hash, or null when the request carries nothing to key on. */
export function routeKey(sessionHeader: string | string[] | undefined, body: Record<string, unknown>): number | null {
  const session = typeof sessionHeader === 'string' ? sessionHeader : sessionHeader?.[0];
  // Prefixes keep the three kinds of key apart: a session id never collides with a prompt by construction.
  if (session) return hash32(`s\u0000${session}`);
  const user = body['user'];
  if (typeof user === 'string' && user !== '') return hash32(`u\u0000${user}`);
  const prompt = promptPrefix(body);
  return prompt === '' ? null : hash32(prompt, PROMPT_KEY_CHARS + 2);
}

/**
 * `p\0` and then the prompt's first PROMPT_KEY_CHARS characters: each chat message
 * as `role\0text\0` (text parts of a content array in order), a completion's
 * `prompt` (a list joined by \0), or an embedding's `input`.
 */
export function promptPrefix(body: Record<string, unknown>): string {
  let out = 'p\u0000';
  const limit = PROMPT_KEY_CHARS + 2;
  const messages = body['messages'] ?? responsesItems(body['input']);
  if (Array.isArray(messages)) {
    for (const m of messages) {
      if (out.length >= limit) break;
      if (typeof m !== 'object' || m === null) continue;
      const role = (m as { role?: unknown }).role;
      out += `${typeof role === 'string' ? role : ''}\u0000${contentText((m as { content?: unknown }).content, limit - out.length)}\u0000`;
    }
  } else {
    const prompt = body['prompt'] ?? body['input'];
    if (typeof prompt === 'string') out += prompt.slice(0, limit);
    else if (Array.isArray(prompt)) {
      for (const part of prompt) {
        if (out.length >= limit) break;
        // Token ids or texts alike: their text form is the same for the same prompt.
        if (typeof part === 'string' || typeof part === 'number') out += `${part}\u0000`;
        else if (Array.isArray(part)) out += `${part.slice(0, limit).join(',')}\u0000`;
      }
    }
  }
  return out.length === 2 ? '' : out.slice(0, limit);
}

/** A Responses API `input` given as items ({role, content}) keys like chat messages; a string or a list of strings stays a prompt. */
function responsesItems(input: unknown): unknown[] | undefined {
  return Array.isArray(input) && typeof input[0] === 'object' && input[0] !== null && !Array.isArray(input[0]) ? input : undefined;
}

function contentText(content: unknown, room: number): string {
  if (typeof content === 'string') return content.length > room ? content.slice(0, Math.max(0, room)) : content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (text.length >= room) break;
    if (typeof part !== 'object' || part === null) continue;
    const p = part as { text?: unknown; image_url?: unknown };
    if (typeof p.text === 'string') text += p.text;
    else if (typeof p.image_url === 'object' && p.image_url !== null && typeof (p.image_url as { url?: unknown }).url === 'string') {
      text += (p.image_url as { url: string }).url.slice(0, room);
    }
  }
  return text;
}
