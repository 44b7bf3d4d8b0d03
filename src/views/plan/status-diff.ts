import { createTwoFilesPatch } from 'diff';

export const OBSERVED_LABEL = 'STATUS.md (observed)';
export const PLANNED_LABEL = 'STATUS.md (planned)';

/**
 * The unified diff from STATUS.md as readers see it (REF's, the working
 * tree's, or the fleet as observed) to STATUS.md of the fleet as the plan
 * leaves it; '' when the plan would not change it.
 */
export function statusDiff(before: string, planned: string, beforeLabel = OBSERVED_LABEL): string {
  if (before === planned) return '';
  const patch = createTwoFilesPatch(beforeLabel, PLANNED_LABEL, before, planned, undefined, undefined, { context: 3 });
  // The library opens with a row of '=' (a leftover of svn diffs) that says nothing here.
  return patch.replace(/^=+\n/, '');
}
