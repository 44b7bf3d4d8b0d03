// One bounded chat completion asked of a replica, for its answer check
// (docs/protocol.md#the-answer-check). Bounded in time (one timer for the whole exchange,
// headers and body alike: an engine that sends headers and then trickles is cut
// too) and in bytes (an answer of max_tokens 32 is short; a body past the cap
// is not an answer). Never throws: every outcome is a value.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Far more than 32 tokens in any framing; a body past this is cut and judged on what came. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export type ChatOutcome =
  | { kind: 'answer'; content: string }
  /** What went wrong, in a few words of our own (never the engine's text). */
  | { kind: 'problem'; detail: string };

export function chatUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/chat/completions`;
}

export function chatBody(model: string, prompt: string): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], max_tokens: 32, temperature: 0 });
}

/** `choices[0].message.content` of a chat completion (or `.text`, as some engines answer). */
function contentOf(value: unknown): string | undefined {
  const choice = (value as { choices?: unknown } | null)?.choices;
  const first = Array.isArray(choice) ? (choice[0] as Record<string, unknown> | undefined) : undefined;
  const message = first?.message as { content?: unknown } | undefined;
  if (typeof message?.content === 'string') return message.content;
  if (typeof first?.text === 'string') return first.text;
  return undefined;
}

/** The concatenated `choices[0].delta.content` of an SSE stream; undefined when no event carried any. */
function sseContent(text: string): string | undefined {
  let content: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') break;
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      continue; // a cut last event, or a keep-alive comment
    }
    const first = (event as { choices?: unknown[] } | null)?.choices?.[0] as { delta?: { content?: unknown }; text?: unknown } | undefined;
    const piece = typeof first?.delta?.content === 'string' ? first.delta.content : typeof first?.text === 'string' ? first.text : undefined;
    if (piece !== undefined) content = (content ?? '') + piece;
  }
  return content;
}

export function answerContent(body: string, contentType: string | undefined): ChatOutcome {
  const streamed = /text\/event-stream/i.test(contentType ?? '') || /^\s*data:/.test(body);
  if (streamed) {
    const content = sseContent(body);
    return content === undefined ? { kind: 'problem', detail: 'a streamed answer without choices[0].delta.content' } : { kind: 'answer', content };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { kind: 'problem', detail: body.length >= MAX_ANSWER_BYTES ? `an answer larger than ${MAX_ANSWER_BYTES / 1024} KiB` : 'an answer that is not JSON' };
  }
  const content = contentOf(value);
  return content === undefined ? { kind: 'problem', detail: 'an answer without choices[0].message.content' } : { kind: 'answer', content };
}

export function askChat(url: string, body: string, timeoutMs: number): Promise<ChatOutcome> {
  return new Promise((resolve) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return resolve({ kind: 'problem', detail: 'not a valid URL' });
    }
    const send = parsed.protocol === 'https:' ? httpsRequest : parsed.protocol === 'http:' ? httpRequest : null;
    if (!send) return resolve({ kind: 'problem', detail: `unsupported protocol ${parsed.protocol}` });
    let settled = false;
    /** Once headers came: judges the body so far (a slow stream's first tokens may already match). */
    let sofar: (() => ChatOutcome) | undefined;
    const finish = (o: ChatOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(o);
    };
    // agent: false — no keep-alive socket may outlive the report and hold the agent process open.
    const req = send(
      parsed,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' } },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) return finish({ kind: 'problem', detail: `HTTP ${String(res.statusCode)}` });
        const chunks: Buffer[] = [];
        let size = 0;
        sofar = () => answerContent(Buffer.concat(chunks).toString('utf8'), res.headers['content-type']);
        const done = (): void => finish((sofar as () => ChatOutcome)());
        res.on('data', (d: Buffer) => {
          const room = MAX_ANSWER_BYTES - size;
          chunks.push(d.length > room ? d.subarray(0, room) : d);
          size += Math.min(d.length, room);
          if (size >= MAX_ANSWER_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      const partial = sofar?.();
      finish(partial?.kind === 'answer' ? partial : { kind: 'problem', detail: `no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ kind: 'problem', detail: `cannot connect (${err.code ?? 'error'})` }));
    req.end(body);
  });
}
