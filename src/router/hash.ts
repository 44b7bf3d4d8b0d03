// A fast 32-bit string hash for the routing ring: FNV-1a over UTF-16 code units,
// then murmur3's finaliser so that nearby strings (`r-0#1`, `r-0#2`) land far
// apart on the ring. Not cryptographic: it only spreads keys, and a client that
// steers its own key gains nothing but where its own request lands.

export function hash32(text: string, limit = text.length): number {
  let h = 0x811c9dc5;
  const n = Math.min(limit, text.length);
  for (let i = 0; i < n; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
