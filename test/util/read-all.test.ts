import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Readable } from 'node:stream';
import { readAll } from '../../src/util/read-all.js';
import { DataError } from '../../src/errors.js';

test('a request is read whole, across chunks', async () => {
  assert.is(await readAll(Readable.from([Buffer.from('{"a":'), Buffer.from('1}')])), '{"a":1}');
});

test('a request larger than the limit is refused with a DataError, not read into memory', async () => {
  const err = await readAll(Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), 1000).catch((e: unknown) => e);
  assert.instance(err, DataError);
  assert.is((err as Error).message, 'the request on stdin is larger than 1000 bytes');
});

test.run();
