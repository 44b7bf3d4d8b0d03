// A V8 CPU profile (node --cpu-prof) summarised: where the router's CPU goes, by
// part (Node's HTTP server and streams, undici, llmgw's own code, the kernel's
// send path as seen from JS) and by function. Idle time is left out.

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function partOf(fn: string, url: string): string {
  if (fn === '(garbage collector)') return 'garbage collection';
  if (fn === '(program)') return 'V8 and libuv (program)';
  if (fn === 'writev' || fn === 'writeUtf8String' || fn === 'writeLatin1String' || fn === 'writeBuffer') return 'socket writes (the send syscalls)';
  if (url.includes('/undici/')) return 'undici (engine side)';
  if (url.includes('/src/router/')) return 'llmgw router code';
  if (url.includes('prom-client')) return 'prom-client';
  if (/^node:(_http_|internal\/http)/.test(url)) return "Node's HTTP server (parse, IncomingMessage, ServerResponse)";
  if (/^node:(internal\/streams|stream|internal\/stream_base)/.test(url) || url === 'node:net' || url === 'node:events') return 'Node streams, net and events';
  if (url === '') return 'other native';
  return 'other JS';
}

export function summariseProfile(file: string, top = 15): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parts = new Map<string, number>();
  const fns = new Map<string, number>();
  let busy = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const dt = p.timeDeltas[i] ?? 0;
    const { functionName, url, lineNumber } = n.callFrame;
    if (functionName === '(idle)') return;
    busy += dt;
    const part = partOf(functionName, url);
    parts.set(part, (parts.get(part) ?? 0) + dt);
    const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '');
    const key = `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + dt);
  });
  const pct = (v: number): string => `${((100 * v) / busy).toFixed(1).padStart(5)}%`;
  const lines = [`busy CPU in the profile: ${(busy / 1e6).toFixed(2)} s`, 'by part:'];
  for (const [k, v] of [...parts].sort((a, b) => b[1] - a[1])) lines.push(`  ${pct(v)}  ${k}`);
  lines.push(`top ${top} functions (self time):`);
  for (const [k, v] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(v)}  ${k}`);
  return lines.join('\n');
}
