// A GPU's class (docs/config.md): the first gpuClasses glob that matches its
// product name, else the product name without `NVIDIA `, cut at the first
// space or hyphen — so `NVIDIA H100 80GB HBM3` and `NVIDIA H100-SXM5` are both H100.

import type { GpuClassRule } from '../types/config.js';

const compiled = new Map<string, RegExp>();

/** `*` is any run of characters, `?` one character; the glob must match the whole name. */
function globRegExp(glob: string): RegExp {
  let re = compiled.get(glob);
  if (!re) {
    const body = glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    re = new RegExp(`^${body}$`, 's');
    compiled.set(glob, re);
  }
  return re;
}

export function gpuClassOf(productName: string, rules: GpuClassRule[]): string {
  for (const rule of rules) if (globRegExp(rule.glob).test(productName)) return rule.name;
  const bare = productName.trim().replace(/^NVIDIA\s+/, '');
  const cut = bare.split(/[\s-]/)[0];
  return cut || bare || 'unknown';
}
