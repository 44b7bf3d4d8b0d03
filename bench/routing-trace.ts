// Seeded request traces for bench:routing: many multi-turn conversations over a
// few shared system prompts (Zipf popularity), and a hotspot trace in which every
// request shares one system prompt and nothing else.

import { prng } from '../test/helpers/prng.js';

export interface TraceRequest {
  /** Conversation number (the hotspot trace: the request's own number). */
  conversation: number;
  turn: number;
  body: { model: string; stream: true; max_tokens: number; messages: { role: string; content: string }[]; user?: string };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'xe', 'zu', 'ba', 'de', 'fi', 'go', 'hu', 'ja'];

/** Text of about `chars` characters made of random words. */
function text(rnd: () => number, chars: number): string {
  let out = '';
  while (out.length < chars) {
    const n = 1 + Math.floor(rnd() * 4);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rnd() * SYLLABLES.length)]!;
    out += (out ? ' ' : '') + w;
  }
  return out.slice(0, chars);
}

function between(rnd: () => number, lo: number, hi: number): number {
  return Math.round(lo + rnd() * (hi - lo));
}

/** Index 0..n-1 with probability proportional to 1/(i+1)^s. */
function zipf(rnd: () => number, n: number, s: number): number {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1) ** s);
  let x = rnd() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < n; i++) if ((x -= weights[i]!) <= 0) return i;
  return n - 1;
}

export interface ConversationTraceOptions {
  seed: number;
  conversations: number;
  turns: number;
  systemPrompts: number;
  zipfS: number;
  /** How many conversations are under way at once: the trace interleaves them. */
  concurrent: number;
  /** Send the conversation's id as `user` (a chat front end does). */
  withUser: boolean;
}

/**
 * Conversations over shared system prompts, interleaved: at any moment
 * `concurrent` conversations are open, each sending its next turn in round-robin
 * order, and a finished one is replaced by the next. Turn k carries the system
 * prompt, the k-1 earlier exchanges (the assistant's answers are part of the
 * trace) and a new user message, as a chat client resends the history.
 */
export function conversationTrace(o: ConversationTraceOptions): TraceRequest[] {
  const rnd = prng(o.seed);
  const systems = Array.from({ length: o.systemPrompts }, (_, i) => `System prompt ${i}. ${text(rnd, between(rnd, 1500, 3000))}`);
  const convs = Array.from({ length: o.conversations }, (_, c) => ({
    c,
    system: systems[zipf(rnd, o.systemPrompts, o.zipfS)]!,
    users: Array.from({ length: o.turns }, () => text(rnd, between(rnd, 150, 600))),
    answers: Array.from({ length: o.turns }, () => text(rnd, between(rnd, 600, 1800))),
  }));
  const out: TraceRequest[] = [];
  const open: { conv: (typeof convs)[number]; turn: number }[] = [];
  let next = 0;
  const fill = (): void => {
    while (open.length < o.concurrent && next < convs.length) open.splice(Math.floor(rnd() * (open.length + 1)), 0, { conv: convs[next++]!, turn: 0 });
  };
  fill();
  while (open.length > 0) {
    const i = Math.floor(rnd() * open.length);
    const slot = open[i]!;
    const { conv, turn } = slot;
    const messages = [{ role: 'system', content: conv.system }];
    for (let k = 0; k < turn; k++) messages.push({ role: 'user', content: conv.users[k]! }, { role: 'assistant', content: conv.answers[k]! });
    messages.push({ role: 'user', content: conv.users[turn]! });
    out.push({
      conversation: conv.c,
      turn,
      body: { model: 'bench', stream: true, max_tokens: 16, messages, ...(o.withUser ? { user: `user-${conv.c}` } : {}) },
    });
    slot.turn++;
    if (slot.turn === o.turns) {
      open.splice(i, 1);
      fill();
    }
  }
  return out;
}

/** Every request: the same system prompt, then a user message of its own. */
export function hotspotTrace(seed: number, requests: number): TraceRequest[] {
  const rnd = prng(seed);
  const system = `The one system prompt. ${text(rnd, 2500)}`;
  return Array.from({ length: requests }, (_, i) => ({
    conversation: i,
    turn: 0,
    body: {
      model: 'bench',
      stream: true,
      max_tokens: 16,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: text(rnd, between(rnd, 150, 600)) },
      ],
    },
  }));
}
