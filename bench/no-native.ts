// `node --import ./dist/bench/no-native.js …`: hide ssh2's optional native crypto
// binding, as on a machine where npm could not build it, so the benchmark can
// show both cases.

import Module from 'node:module';

const mod = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = mod._load;
mod._load = function (request: string, ...rest: unknown[]) {
  if (request.endsWith('sshcrypto.node')) throw new Error('ssh2 native binding hidden by bench/no-native');
  return load.call(this, request, ...rest);
};
