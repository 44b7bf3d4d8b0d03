// Every error the router sends is OpenAI's error JSON, malformed requests included:
// the requests Node's HTTP server cannot parse (its clientError hook) and the
// ones it would otherwise answer with a bare status line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineTracker, request, withRouter, clientAgent, type TestRouter } from './helpers.js';
import { openAiError, rawExchange } from './raw-client.js';

const test = suite('router malformed requests');
let router: TestRouter;
const { engine, closeAll } = engineTracker();

test.before(async () => {
  router = await withRouter({ maxBodyBytes: 64 * 1024, clientTimeouts: { headersMs: 400, requestMs: 800, checkEveryMs: 100 } });
  const e = await engine('a');
  await router.setTable({ m: [{ replica: 'm-0', url: e.url }] });
});
test.after(async () => {
  await router.close();
  await closeAll();
  clientAgent.destroy();
});

const H = 'Host: r\r\n';
const POST = (head: string, body = '') => `POST /v1/chat/completions HTTP/1.1\r\n${H}${head}\r\n${body}`;

/** [kind, bytes, status, code] */
const CASES: [string, string, number, string][] = [
  ['a request line that is not HTTP', 'hello there\r\n\r\n', 400, 'bad_request'],
  ['a method with a character no method has', `G@T /v1/models HTTP/1.1\r\n${H}\r\n`, 400, 'bad_request'],
  ['an HTTP version that does not exist', `GET /v1/models HTTP/4.2\r\n${H}\r\n`, 400, 'bad_request'],
  ['a header line without a colon', `GET /v1/models HTTP/1.1\r\n${H}NoColonHere\r\n\r\n`, 400, 'bad_request'],
  ['a space inside a header name', `GET /v1/models HTTP/1.1\r\n${H}Bad Name: x\r\n\r\n`, 400, 'bad_request'],
  ['a space before the colon', `GET /v1/models HTTP/1.1\r\nHost : r\r\n\r\n`, 400, 'bad_request'],
  ['a control character in a header value', `GET /v1/models HTTP/1.1\r\n${H}X-A: a\x01b\r\n\r\n`, 400, 'bad_request'],
  ['an obsolete folded header line', `GET /v1/models HTTP/1.1\r\n${H}X-A: a\r\n  folded\r\n\r\n`, 400, 'bad_request'],
  ['a head over the size limit', `GET /v1/models HTTP/1.1\r\n${H}X-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`, 431, 'headers_too_large'],
  ['a Content-Length that is not a number', POST('Content-Length: ten\r\n'), 400, 'bad_request'],
  ['a negative Content-Length', POST('Content-Length: -5\r\n'), 400, 'bad_request'],
  ['two different Content-Lengths', POST('Content-Length: 2\r\nContent-Length: 3\r\n', '{}x'), 400, 'bad_request'],
  ['Content-Length beside Transfer-Encoding (request smuggling)', POST('Content-Length: 4\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'), 400, 'bad_request'],
  ['a Transfer-Encoding that does not end in chunked', POST('Transfer-Encoding: gzip\r\n', 'xx'), 400, 'bad_request'],
  ['a chunk size that is not hex', POST('Transfer-Encoding: chunked\r\n', 'zz\r\nhello\r\n0\r\n\r\n'), 400, 'bad_request'],
  ['chunk extensions past the limit', POST('Transfer-Encoding: chunked\r\n', `5;${'e'.repeat(20 * 1024)}\r\nhello\r\n0\r\n\r\n`), 413, 'request_too_large'],
  ['a NUL byte in the URL', `GET /v1/mo\x00dels HTTP/1.1\r\n${H}\r\n`, 400, 'bad_request'],
  ['HTTP/1.1 without a Host header', 'GET /v1/models HTTP/1.1\r\n\r\n', 400, 'missing_host'],
  ['an Expect other than 100-continue', POST('Expect: 200-ok\r\nContent-Length: 2\r\n', '{}'), 417, 'expectation_failed'],
  ['CONNECT (the router is no tunnel)', `CONNECT example.com:443 HTTP/1.1\r\n${H}\r\n`, 405, 'method_not_allowed'],
  ['a head that never finishes (timeout)', `GET /v1/models HTTP/1.1\r\n${H}X-Slow: `, 408, 'request_timeout'],
  ['a body shorter than its Content-Length that never finishes (timeout)', POST('Content-Length: 100\r\n', '{"model":'), 408, 'request_timeout'],
];

for (const [kind, bytes, status, code] of CASES) {
  test(`${kind}: ${status} with OpenAI's error JSON (${code})`, async () => {
    const r = await rawExchange(router.port, bytes);
    assert.is(r.status, status, `status line: ${r.head.split('\r\n')[0]}`);
    assert.match(r.head, /\r\ncontent-type: application\/json/i);
    const error = openAiError(r.body);
    assert.ok(error, `an OpenAI error object: ${r.body}`);
    assert.is(error.code, code);
    assert.is(error.type, 'invalid_request_error');
  });
}

test('after all of that, the router still serves a normal request', async () => {
  const r = await request(router.port, '/v1/chat/completions', { model: 'm' });
  assert.equal([r.status, r.json.engine], [200, 'a']);
});

test.run();
