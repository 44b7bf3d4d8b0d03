// llmgw's Slurm jobs are named `llmgw/<replica>/<rank>` (docs/slurm.md): the name
// is how a job is told to be llmgw's, and which replica and rank it runs.

const JOB_NAME = /^llmgw\/([A-Za-z0-9._-]{1,128})\/([0-9]{1,4})$/;

export function jobName(replica: string, rank: number): string {
  return `llmgw/${replica}/${rank}`;
}

/** The replica and rank of one of llmgw's job names; null for any other job. */
export function parseJobName(name: string): { replica: string; rank: number } | null {
  const m = JOB_NAME.exec(name);
  if (!m) return null;
  return { replica: m[1] ?? '', rank: Number(m[2]) };
}

/** Job states after which a job holds nothing and never runs again. */
const ENDED = new Set(['completed', 'cancelled', 'failed', 'timeout', 'preempted', 'node_fail', 'boot_fail', 'deadline', 'out_of_memory', 'revoked']);

export function jobEnded(state: string): boolean {
  return ENDED.has(state);
}

/**
 * llmgw's jobs by replica and rank (`<replica>/<rank>`): the newest job of a
 * name wins (a replaced rank's old job may still be listed, ended).
 */
export function llmgwJobs<J extends { id: string; name: string }>(jobs: readonly J[]): Map<string, J> {
  const out = new Map<string, J>();
  for (const j of jobs) {
    const n = parseJobName(j.name);
    if (n === null) continue;
    const key = `${n.replica}/${n.rank}`;
    const prev = out.get(key);
    if (prev === undefined || Number(j.id) > Number(prev.id)) out.set(key, j);
  }
  return out;
}
