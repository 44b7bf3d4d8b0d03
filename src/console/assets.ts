// The console's only static files, kept in the code so the page works offline
// and from a bare install: a small stylesheet, the refresh script and an icon.
// Served from this origin (the CSP allows nothing else), each with an ETag.

import { createHash } from 'node:crypto';

const CSS = `:root{--fg:#1d2329;--muted:#5b6670;--bg:#fff;--line:#dde2e7;--tint:#fff6e0;--accent:#0b5cad;
--used:#2b6cb0;--unhealthy:#c53030;--unreachable:#d69e2e;--cordoned:#805ad5;--other:#2c7a7b;--free:#cbd5e0;--warn:#fffaf0;--warnline:#dd6b20}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ec;--muted:#a0aab4;--bg:#15191d;--line:#2d353d;--tint:#2a2516;--accent:#7cb7ff;--free:#3a4654;--warn:#2b2218}}
*{box-sizing:border-box}
html{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent)}
a:focus-visible,summary:focus-visible{outline:3px solid #f6ad55;outline-offset:2px;border-radius:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.4rem .8rem}
.skip:focus{left:.5rem;z-index:2}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1.2rem;padding:.6rem 1rem;border-bottom:1px solid var(--line)}
header p{margin:0}
.brand a{font-weight:700;text-decoration:none;color:var(--fg)}
.cluster{color:var(--muted)}
nav{display:flex;flex-wrap:wrap;gap:.2rem}
nav a{padding:.3rem .6rem;border-radius:4px;text-decoration:none}
nav a[aria-current=page]{background:var(--accent);color:var(--bg)}
.live{color:var(--muted);font-size:.9rem}
main{max-width:78rem;padding:0 1rem 2rem;margin:0 auto}
h1{font-size:1.5rem;margin:1rem 0 .2rem}
h2{font-size:1.15rem;margin:1.6rem 0 .5rem}
.subtitle{color:var(--muted);margin-top:0}
section.warning{background:var(--warn);border-left:4px solid var(--warnline);padding:.2rem 1rem .6rem;margin:1rem 0}
pre{overflow-x:auto;background:rgba(127,127,127,.1);padding:.6rem .8rem;border-radius:4px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.attention-list ul{padding-left:1.2rem}
.attention-list li{margin:.3rem 0}
.attention-list a,td a{white-space:nowrap}
td.time{white-space:nowrap}
.headline{font-weight:600}
.detail{color:var(--muted)}
.ok{color:var(--muted)}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;white-space:nowrap}
.num{text-align:right}
tr.attention td{background:var(--tint)}
tr.attention td:first-child{box-shadow:inset 3px 0 var(--warnline)}
td.error{color:var(--muted);max-width:36rem;overflow-wrap:anywhere}
td.barcell{min-width:10rem;width:30%}
svg.bar{display:block;width:100%;height:1rem;background:var(--free);border-radius:2px}
.b-used{fill:var(--used)}.b-unhealthy{fill:var(--unhealthy)}.b-unreachable{fill:var(--unreachable)}.b-cordoned{fill:var(--cordoned)}.b-other{fill:var(--other)}.b-free{fill:var(--free)}
.legend{color:var(--muted);font-size:.9rem}
.key::before{content:"";display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:-.05em;border-radius:2px;background:var(--free)}
.key.b-used::before{background:var(--used)}.key.b-unhealthy::before{background:var(--unhealthy)}.key.b-unreachable::before{background:var(--unreachable)}.key.b-cordoned::before{background:var(--cordoned)}.key.b-other::before{background:var(--other)}
svg.chart{display:block;width:100%;max-width:48rem;height:auto}
svg.chart .axis{stroke:var(--line)}svg.chart text.day{fill:var(--muted);font-size:13px}svg.chart text.open{font-weight:700}
.g-serving{fill:var(--used)}.g-idle{fill:#ed8936}.g-transit{fill:#90cdf4}.g-free{fill:var(--free)}.g-unhealthy{fill:var(--unhealthy)}.g-other{fill:var(--other)}.g-unreachable{fill:var(--unreachable)}.g-cordoned{fill:var(--cordoned)}.g-unobserved{fill:#718096}
.key.g-serving::before{background:var(--used)}.key.g-idle::before{background:#ed8936}.key.g-transit::before{background:#90cdf4}.key.g-unhealthy::before{background:var(--unhealthy)}.key.g-other::before{background:var(--other)}.key.g-unreachable::before{background:var(--unreachable)}.key.g-cordoned::before{background:var(--cordoned)}.key.g-unobserved::before{background:#718096}
details{margin:.4rem 0}
summary{cursor:pointer;color:var(--accent)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.diff .add{color:#2f855a}.diff .del{color:#c53030}.diff .hunk{color:var(--muted)}
footer{border-top:1px solid var(--line);color:var(--muted);font-size:.9rem;padding:.4rem 1rem}
@media (max-width:40rem){html{font-size:14px}th,td{padding:.25rem .4rem}td.barcell{min-width:6rem}}
`;

// Reload when the data changes: ask /api/version (an ETag'd answer, 304 while
// nothing changed) and reload the page once its version differs. No framework,
// no inline script: the CSP allows only this file.
const JS = `'use strict';
(function () {
  var body = document.body;
  var mine = body.getAttribute('data-version');
  var every = Number(body.getAttribute('data-refresh-ms')) || 5000;
  var live = document.getElementById('live');
  var etag = null;
  function say(text) { if (live) live.textContent = text; }
  function later() { setTimeout(poll, every); }
  function poll() {
    var headers = etag ? { 'If-None-Match': etag } : {};
    fetch('/api/version', { headers: headers, cache: 'no-store' }).then(function (res) {
      if (res.status === 304) { say(''); return later(); }
      if (!res.ok) { say('The console answered ' + res.status + '; retrying.'); return later(); }
      etag = res.headers.get('ETag');
      return res.json().then(function (v) {
        if (v.version !== mine) { say('New data: reloading.'); location.reload(); return; }
        say('');
        later();
      });
    }).catch(function () { say('The console is not answering; retrying.'); later(); });
  }
  later();
})();
`;

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2b6cb0"/><rect x="3" y="9" width="2" height="4" fill="#fff"/><rect x="7" y="6" width="2" height="7" fill="#fff"/><rect x="11" y="3" width="2" height="10" fill="#fff"/></svg>`;

export interface Asset {
  type: string;
  body: string;
  etag: string;
}

function asset(type: string, body: string): Asset {
  return { type, body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` };
}

export const ASSETS: Readonly<Record<string, Asset>> = {
  '/console.css': asset('text/css; charset=utf-8', CSS),
  '/console.js': asset('text/javascript; charset=utf-8', JS),
  '/favicon.svg': asset('image/svg+xml', ICON),
};
