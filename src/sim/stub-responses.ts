// The stub engine's `POST /v1/responses` (OpenAI's Responses API, which vLLM
// serves and the current openai SDK uses): the same tokens as a chat answer,
// in the Responses shapes — one `response` object, or a stream of
// `response.created`, `response.output_text.delta` events and `response.completed`.

import type { ServerResponse } from 'node:http';

export interface ResponsesAnswer {
  id: string;
  model: string;
  createdAt: number;
  tokens: string[];
  inputTokens: number;
  tokenDelayMs: number;
}

function responseObject(a: ResponsesAnswer, status: 'in_progress' | 'completed'): Record<string, unknown> {
  const text = a.tokens.join('');
  const done = status === 'completed';
  return {
    id: `resp_${a.id}`,
    object: 'response',
    created_at: a.createdAt,
    status,
    model: a.model,
    output: done
      ? [{ type: 'message', id: `msg_${a.id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }]
      : [],
    usage: done ? { input_tokens: a.inputTokens, output_tokens: a.tokens.length, total_tokens: a.inputTokens + a.tokens.length } : null,
  };
}

export async function answerResponses(res: ServerResponse, a: ResponsesAnswer, stream: boolean, sleep: (ms: number) => Promise<void>): Promise<void> {
  if (!stream) {
    await sleep(a.tokenDelayMs * (a.tokens.length - 1));
    const text = JSON.stringify(responseObject(a, 'completed'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    return void res.end(text);
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  };
  send('response.created', { response: responseObject(a, 'in_progress') });
  for (const [i, t] of a.tokens.entries()) {
    if (i > 0) await sleep(a.tokenDelayMs);
    if (res.destroyed) return;
    send('response.output_text.delta', { item_id: `msg_${a.id}`, output_index: 0, content_index: 0, delta: t });
  }
  send('response.completed', { response: responseObject(a, 'completed') });
  res.end();
}
