import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_HOSTLIST_NAMES, expandHostlist, parseHostlist } from '../../src/config/hostlist.js';

function names(pattern: string): string[] {
  const r = expandHostlist(pattern);
  if (!r.ok) throw new Error(`expected ${pattern} to expand: ${r.error}`);
  return r.names;
}

function error(pattern: string): string {
  const r = expandHostlist(pattern);
  if (r.ok) throw new Error(`expected ${pattern} to be malformed, got ${r.names.join(',')}`);
  return r.error;
}

test('a plain name is itself', () => {
  assert.equal(names('rt-1.example'), ['rt-1.example']);
});

test('a range keeps the zero padding of its lower bound', () => {
  assert.equal(names('gpu[01-04]'), ['gpu01', 'gpu02', 'gpu03', 'gpu04']);
  assert.equal(names('gpu[001-003]'), ['gpu001', 'gpu002', 'gpu003']);
  assert.equal(names('gpu[08-11]'), ['gpu08', 'gpu09', 'gpu10', 'gpu11']);
});

test('an unpadded range is not padded: gpu[8-11] is gpu8..gpu11', () => {
  assert.equal(names('gpu[8-11]'), ['gpu8', 'gpu9', 'gpu10', 'gpu11']);
});

test('a padded range passing its width grows naturally: [098-101]', () => {
  assert.equal(names('n[098-101]'), ['n098', 'n099', 'n100', 'n101']);
});

test('ranges and single numbers mix with commas: gpu[01-04,07]', () => {
  assert.equal(names('gpu[01-04,07]'), ['gpu01', 'gpu02', 'gpu03', 'gpu04', 'gpu07']);
});

test('two brackets are a product, the last varying fastest: r[1-2]n[01-02]', () => {
  assert.equal(names('r[1-2]n[01-02]'), ['r1n01', 'r1n02', 'r2n01', 'r2n02']);
});

test('text after a bracket is kept: gpu-a[01-02].ib', () => {
  assert.equal(names('gpu-a[01-02].ib'), ['gpu-a01.ib', 'gpu-a02.ib']);
});

test('commas outside brackets join hostlists: a[1-2],b7', () => {
  assert.equal(names('a[1-2],b7'), ['a1', 'a2', 'b7']);
});

test('r[1-2]n[01-04] expands to 8 names in order', () => {
  assert.is(names('r[1-2]n[01-04]').length, 8);
  assert.is(names('r[1-2]n[01-04]')[4], 'r2n01');
});

/** Malformed patterns and the error each is; `error` also holds that none throws. */
const MALFORMED: [pattern: string, error: string][] = [
  ['gpu[01-04', "malformed hostlist 'gpu[01-04': unbalanced or nested brackets"],
  ['gpu01-04]', "malformed hostlist 'gpu01-04]': unbalanced or nested brackets"],
  ['gpu[[01-02]]', "malformed hostlist 'gpu[[01-02]]': unbalanced or nested brackets"],
  ['gpu[]', "malformed hostlist 'gpu[]': empty brackets []"],
  ['gpu[a-c]', "malformed hostlist 'gpu[a-c]': 'a-c' is not a number or a range like 01-16"],
  ['gpu[04-01]', "malformed hostlist 'gpu[04-01]': range 04-01 runs backwards"],
  ['gpu[01-]', "malformed hostlist 'gpu[01-]': '01-' is not a number or a range like 01-16"],
  ['gpu[01,,03]', "malformed hostlist 'gpu[01,,03]': '' is not a number or a range like 01-16"],
  ['gpu 01', "malformed hostlist 'gpu 01': 'gpu 01' has characters a host name cannot have"],
  ['', "malformed hostlist '': an empty name"],
  ['a,,b', "malformed hostlist 'a,,b': an empty name"],
];

test('malformed patterns are errors, never exceptions', () => {
  for (const [pattern, message] of MALFORMED) assert.is(error(pattern), message);
});

test('at most 100,000 names a pattern, checked before expanding', () => {
  assert.is(names(`n[1-${MAX_HOSTLIST_NAMES}]`).length, MAX_HOSTLIST_NAMES);
  assert.is(error('n[0-99999]x[0-99999]'), "hostlist 'n[0-99999]x[0-99999]' expands to more than 100000 names");
  assert.is(error('n[0-100000]'), "malformed hostlist 'n[0-100000]': range 0-100000 has more than 100000 names");
});

test('a pattern is counted without expanding it, and the count is what expanding gives', () => {
  for (const pattern of ['gpu[01-04,07]', 'r[1-2]n[01-04]', 'a[1-2],b7', 'n[000001-100000]']) {
    const p = parseHostlist(pattern);
    assert.ok(p.ok);
    assert.is(p.count, p.expand().length, pattern);
  }
});

test('a number too long to count exactly is an error, not a wrong name', () => {
  assert.is(error('n[9999999999999999-9999999999999999]'), "malformed hostlist 'n[9999999999999999-9999999999999999]': a number of more than 15 digits");
});

test('a very long pattern is quoted cut short in its error', () => {
  const e = error(`${'x'.repeat(5000)} y`);
  assert.ok(e.length < 250, String(e.length));
  assert.match(e, /…'/);
});

test('more edges: a close bracket before its open one, letters inside a range, a bracket first, too many names in one bracket', () => {
  assert.is(error('a]b['), "malformed hostlist 'a]b[': unbalanced or nested brackets");
  assert.is(error('gpu[a1-3]'), "malformed hostlist 'gpu[a1-3]': 'a1-3' is not a number or a range like 01-16");
  assert.equal(names('[01-02]-gpu'), ['01-gpu', '02-gpu']);
  assert.equal(names('gpu[1-2],[7-8]x'), ['gpu1', 'gpu2', '7x', '8x']);
  assert.is(error('n[0-60000,0-60000]'), "malformed hostlist 'n[0-60000,0-60000]': more than 100000 names");
});

test.run();
