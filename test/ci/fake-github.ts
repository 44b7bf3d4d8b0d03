// A stand-in for api.github.com on 127.0.0.1: the issue-comment endpoints the
// plan comment uses, with GitHub's pagination (per_page, page, Link rel="next").

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: 'Bot' | 'User' };
}

export interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface FakeGitHub {
  api: string;
  comments: Map<number, FakeComment[]>;
  seen: Seen[];
  /** Answer every request with this status and message instead. */
  failWith: { status: number; message: string } | null;
  /** Where the `next` link of the first page points instead (a hostile server). */
  nextOverride: string | null;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<{ body?: string }> {
  let text = '';
  for await (const c of req) text += String(c);
  return text ? (JSON.parse(text) as { body?: string }) : {};
}

export async function startFakeGitHub(repository = 'acme/fleet'): Promise<FakeGitHub> {
  let nextId = 1000;
  const state: Omit<FakeGitHub, 'api' | 'close'> = { comments: new Map(), seen: [], failWith: null, nextOverride: null };
  const bot = { login: 'github-actions[bot]', type: 'Bot' as const };
  let api = '';
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', api);
    state.seen.push({ method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (state.failWith) {
      send(state.failWith.status, { message: state.failWith.message });
      return;
    }
    const list = new RegExp(`^/repos/${repository}/issues/(\\d+)/comments$`).exec(url.pathname);
    const one = new RegExp(`^/repos/${repository}/issues/comments/(\\d+)$`).exec(url.pathname);
    if (list && req.method === 'GET') {
      const all = state.comments.get(Number(list[1])) ?? [];
      const per = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const slice = all.slice((page - 1) * per, page * per);
      const headers: Record<string, string> = {};
      if (page * per < all.length) {
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        headers.link = `<${page === 1 && state.nextOverride ? state.nextOverride : next.href}>; rel="next", <${api}/last>; rel="last"`;
      }
      send(
        200,
        slice.map((c) => ({ ...c, html_url: `https://github.example/${repository}/pull/${list[1]}#issuecomment-${c.id}` })),
        headers,
      );
      return;
    }
    if (list && req.method === 'POST') {
      const { body } = await bodyOf(req);
      const c: FakeComment = { id: nextId++, body: body ?? '', user: bot };
      const pr = Number(list[1]);
      state.comments.set(pr, [...(state.comments.get(pr) ?? []), c]);
      send(201, { ...c, html_url: `https://github.example/c/${c.id}` });
      return;
    }
    if (one && req.method === 'PATCH') {
      const { body } = await bodyOf(req);
      for (const cs of state.comments.values()) {
        const c = cs.find((x) => x.id === Number(one[1]));
        if (c) {
          c.body = body ?? '';
          send(200, { ...c, html_url: `https://github.example/c/${c.id}` });
          return;
        }
      }
      send(404, { message: 'Not Found' });
      return;
    }
    send(404, { message: 'Not Found' });
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    api,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  });
}
