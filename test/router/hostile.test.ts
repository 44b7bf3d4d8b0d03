// A seeded generator of malformed and hostile HTTP requests against the router
// (the trust rules' hostile-input suite, for the router's front door): each gets
// an answer — OpenAI's error JSON for every error — or a clean close; never a
// crash (this process hosts the router), never a hang.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientAgent, engineTracker, request, withRouter, type TestRouter } from './helpers.js';
import { openAiError, rawExchange, type RawAnswer } from './raw-client.js';
import { prng } from '../helpers/prng.js';

const test = suite('router hostile requests');
const SEED = Number(process.env['LLMGW_HOSTILE_SEED'] ?? 20261130);
const COUNT = 240;
let router: TestRouter;
const { engine, closeAll } = engineTracker();

test.before(async () => {
  router = await withRouter({
    maxBodyBytes: 64 * 1024,
    maxBufferedBytes: 512 * 1024,
    clientTimeouts: { headersMs: 500, requestMs: 1000, checkEveryMs: 100 },
    // Requests for the model with no replica wait briefly, then get 503.
    liveness: { waitTimeoutMs: 20 },
  });
  const e = await engine('a');
  await router.setTable({
    m: [
      { replica: 'm-0', url: e.url },
      { replica: 'm-1', url: e.url },
    ],
    n: [],
  });
});
test.after(async () => {
  await router.close();
  await closeAll();
  clientAgent.destroy();
});

function templates(): string[] {
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], user: 'u1' });
  return [
    `POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    `POST /v1/completions HTTP/1.1\r\nHost: r\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    'GET /v1/models HTTP/1.1\r\nHost: r\r\nAccept: */*\r\n\r\n',
    'GET /v1/models/m HTTP/1.1\r\nHost: r\r\n\r\n',
    `POST /v1/embeddings HTTP/1.1\r\nHost: r\r\nX-Session-Id: s\r\nContent-Length: 27\r\n\r\n{"model":"n","input":"abc"}`,
  ];
}

const NASTY = [
  '\r',
  '\n',
  '\r\n',
  '\x00',
  ' ',
  ':',
  '\t',
  '\x7f',
  '\xff',
  '%00',
  '../',
  '"',
  '{',
  '}',
  '\\',
  'Transfer-Encoding: chunked\r\n',
  'Content-Length: 5\r\n',
  'Expect: 100-continue\r\n',
];

function mutate(text: string, rnd: () => number): string {
  const at = (n: number) => Math.floor(rnd() * n);
  const ops = [
    () => {
      const i = at(text.length);
      return text.slice(0, i) + String.fromCharCode(at(256)) + text.slice(i + 1);
    },
    () => {
      const i = at(text.length);
      return text.slice(0, i) + NASTY[at(NASTY.length)]! + text.slice(i);
    },
    () => {
      const i = at(text.length);
      return text.slice(0, i) + text.slice(i + 1 + at(20));
    },
    () => text.replace(/^[A-Z]+/, ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'POST', 'X'.repeat(at(40) + 1), ''][at(9)]!),
    () =>
      text.replace(
        / \/[^ ]*/,
        ` ${['/v1/chat/completions/../x', '/' + 'a'.repeat(at(20000)), '/v1/models/%ff%fe', '*', 'http://evil.example/v1/models', '/v1/chat/completions?x=' + '%'.repeat(at(50))][at(6)]!}`,
      ),
    () => text.replace(/Content-Length: \d+/i, `Content-Length: ${['0', '-1', '1e3', '99999999999999999999', String(at(300)), ' 12', '0x10'][at(7)]!}`),
    () => text.replace('\r\n\r\n', `\r\nX-Big: ${'v'.repeat(at(40_000))}\r\n\r\n`),
    () => text.replace('\r\n\r\n', `\r\n${'X-H: 1\r\n'.repeat(at(3000))}\r\n`),
    () =>
      text.replace(
        /\{.*\}$/s,
        ['[', '{"model":' + '['.repeat(at(50_000)), 'null', '"model"', '{"model":"m\\u0000"}', '{"model":{"$gt":""}}', '\uffff\ud800'][at(7)]!,
      ),
    () => text.slice(0, at(text.length)),
    () => text.replace('Host: r\r\n', ['', 'Host: r\r\nHost: s\r\n', 'Host: \r\n', 'Host: r\x00\r\n'][at(4)]!),
    () => text + text.slice(0, at(text.length)),
  ];
  let out = text;
  const n = 1 + at(3);
  for (let k = 0; k < n; k++) out = ops[at(ops.length)]!();
  return out;
}

function check(label: string, r: RawAnswer): void {
  if (r.status === null) {
    assert.ok(r.closed, `${label}: no answer, and the connection was closed cleanly`);
    return;
  }
  assert.ok(r.status >= 200 && r.status < 600, `${label}: a real status (${r.status})`);
  if (r.status >= 400) {
    assert.ok(openAiError(r.body), `${label}: status ${r.status} carries OpenAI's error JSON, got ${JSON.stringify(r.body.slice(0, 200))}`);
  } else if (r.body !== '') {
    assert.not.throws(() => JSON.parse(r.body), `${label}: a success body is JSON`);
  }
}

test(`${COUNT} seeded hostile requests (seed ${SEED}): each is answered with OpenAI's error JSON (or served), or closed; none hangs or crashes the router`, async () => {
  const rnd = prng(SEED);
  const base = templates();
  const cases = Array.from({ length: COUNT }, (_, i) => mutate(base[i % base.length]!, rnd));
  const statuses = new Map<string, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      const label = `case ${i} ${JSON.stringify(cases[i]!.slice(0, 80))}`;
      const r = await rawExchange(router.port, Buffer.from(cases[i]!, 'latin1'), 5000);
      check(label, r);
      const key = r.status === null ? 'closed' : String(r.status);
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 12 }, worker));
  if (process.env['LLMGW_HOSTILE_VERBOSE']) console.log(JSON.stringify([...statuses]));
  // The mix is part of what is checked: most are refused, some still parse and are served.
  assert.ok((statuses.get('400') ?? 0) > 20, `many are malformed: ${JSON.stringify([...statuses])}`);
  assert.ok([...statuses.keys()].length >= 4, `a spread of outcomes: ${JSON.stringify([...statuses])}`);
  const after = await request(router.port, '/v1/chat/completions', { model: 'm' });
  assert.is(after.status, 200, 'the router still serves');
});

test.run();
