// The smallest valid pair of config files, and the two ways config's unit tests
// read them: one file through the YAML reader alone (for a resolver), or both
// through parseConfig (for what an operator sees).

import { parseConfig, type LoadOptions } from '../../src/config/load-config.js';
import { parseYamlSource, type YamlSource } from '../../src/config/yaml-source.js';

export const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: test
fabrics: [ib-a]
nodes:
  - name: gpu-a[01-02]
    fabric: ib-a
engines:
  vllm:
    command: [vllm, serve]
`;

export const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - name: m
    weights: org/m
    engine: vllm
    gpus: 1
`;

/** The same in flow style, with two nodes and a model of two GPUs: what parseConfig's own tests read. */
export const TINY_CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: tiny
fabrics: [ib-a]
nodes:
  - { name: "n[1-2]", fabric: ib-a }
engines:
  vllm: { command: [vllm, serve] }
`;

export const TINY_MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 2 }
`;

/** One file read by the YAML reader, for a resolver to be called on; a YAML mistake is the test's own. */
export function yamlOf(name: 'cluster.yaml' | 'models.yaml', text: string): YamlSource {
  const p = parseYamlSource(name, text, name === 'cluster.yaml' ? 'cluster' : 'models');
  if (!p.ok) throw new Error(p.error.message);
  return p.source;
}

/** Both files through parseConfig, with HOME set (and whatever else `opts` sets). */
export function parsePair(cluster: string, models: string, opts: LoadOptions = {}) {
  return parseConfig(
    { cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } },
    { ...opts, env: { HOME: '/home/op', ...opts.env } },
  );
}
