// nginx (Debian's nginx-light) as the reference proxy and wrk as the load
// generator, for bench:router. nginx runs as one process (master_process off,
// so exactly one worker) with a keepalive upstream, from a config written into
// a temp directory; wrk is a C program, so the client does not eat the proxies' CPU.

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { portOpen, which, sleep } from './bench-util.js';

export interface Nginx {
  port: number;
  pid: number;
  stop(): void;
}

export function nginxConfig(dir: string, port: number, upstreams: number[]): string {
  return `# written by bench:router
worker_processes 1;
master_process off;
daemon off;
error_log ${join(dir, 'nginx-error.log')} warn;
pid ${join(dir, 'nginx.pid')};
events { worker_connections 20000; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'nginx-body')};
  proxy_temp_path ${join(dir, 'nginx-proxy')};
  fastcgi_temp_path ${join(dir, 'nginx-fastcgi')};
  uwsgi_temp_path ${join(dir, 'nginx-uwsgi')};
  scgi_temp_path ${join(dir, 'nginx-scgi')};
  keepalive_requests 1000000;
  upstream engines {
${upstreams.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 256;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port} reuseport;
    location / {
      proxy_pass http://engines;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
`;
}

/** Start nginx on `port` in front of `upstreams`; null (and why) when it is not installed. */
export async function startNginx(dir: string, port: number, upstreams: number[]): Promise<Nginx | string> {
  const bin = ['/usr/sbin/nginx', 'nginx'].find((b) => which(b));
  if (!bin) return 'nginx is not installed (Debian: apt-get install nginx-light)';
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, port, upstreams));
  const child: ChildProcess = spawn(bin, ['-c', conf, '-p', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += String(d)));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) return `nginx exited: ${err.trim()}`;
    if (await portOpen(port)) break;
    await sleep(50);
  }
  return { port, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  errors: number;
  p50ms: number;
  p99ms: number;
}

export const WRK_LUA = `wrk.method = "POST"
wrk.body = '{"model":"bench","messages":[{"role":"user","content":"Say hi in five words."}],"max_tokens":16}'
wrk.headers["Content-Type"] = "application/json"
`;

export function hasWrk(): boolean {
  return which('wrk');
}

/** wrk -t1 against `url` with the bench's POST, for `seconds`. */
export function runWrk(script: string, url: string, connections: number, seconds: number): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--latency', '-s', script, url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('error', reject);
    child.on('close', () => {
      const num = (re: RegExp): number => Number(re.exec(out)?.[1] ?? NaN);
      const ms = (re: RegExp): number => {
        const m = re.exec(out);
        if (!m) return NaN;
        const v = Number(m[1]);
        return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
      };
      const requests = num(/(\d+) requests in/);
      const secs = ms(/requests in ([\d.]+)(us|ms|s)/) / 1000;
      const errors =
        (num(/Non-2xx or 3xx responses: (\d+)/) || 0) + [...out.matchAll(/(?:connect|read|write|timeout) (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
      resolve({
        requests,
        seconds: secs,
        rps: num(/Requests\/sec:\s+([\d.]+)/),
        errors,
        p50ms: ms(/50%\s+([\d.]+)(us|ms|s)/),
        p99ms: ms(/99%\s+([\d.]+)(us|ms|s)/),
      });
    });
  });
}
