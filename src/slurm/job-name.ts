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
