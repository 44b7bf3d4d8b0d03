// Reading what a Prometheus server would read: the text exposition, parsed into
// samples; and promtool's verdict on it.

import { spawnSync } from 'node:child_process';
import { request } from 'node:http';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (comment lines skipped). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[k!] = v!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample with this name and these labels (others may be present); undefined when none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v) && Object.keys(s.labels).length === Object.keys(labels).length,
  );
  if (hits.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${hits.length} samples`);
  return hits[0]?.value;
}

export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

export function scrape(url: string): Promise<{ status: number; contentType: string; text: string }> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time, as a scraper after a restart would open.
    request(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), text }));
    })
      .on('error', reject)
      .end();
  });
}

/** `promtool check metrics` on the text: its exit code and what it said (lint problems, one a line). */
export function promtoolCheck(text: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool is missing (Debian's prometheus package): ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
