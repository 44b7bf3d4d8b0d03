// A spec's argv in the PR comment is shown as a shell would take it back (argvText).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { argvText } from '../../../src/views/plan/render-common.js';

test("a single quote inside an argument is written as '\\'' so the shell reads the argument back unchanged", () => {
  assert.is(argvText(['echo', "it's"]), "echo 'it'\\''s'");
  assert.is(argvText(["--chat-template={{ 'x' }}"]), "'--chat-template={{ '\\''x'\\'' }}'");
  assert.is(argvText(["'"]), "''\\'''");
});

test('plain words stay bare and anything else is single-quoted', () => {
  assert.is(argvText(['vllm', 'serve', '{weightsPath}', '--port', '{port}', 'a b', '']), "vllm serve {weightsPath} --port {port} 'a b' ''");
});

test.run();
