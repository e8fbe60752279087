'use client';
// Small pieces about a creation operation, shared by the lists that show one (Operations, Unsettled, a task's page).
import { Badge, type BadgeTone } from './ui';

export const STEP_TONE: Record<string, BadgeTone> = {
  succeeded: 'ok',
  failed: 'bad',
  unknown: 'bad',
  running: 'warn',
  planned: 'muted',
};

interface Progress {
  state: string;
  steps_total: number;
  steps_succeeded: number;
  current_step: { index: number; kind: string; state: string; attempts: number } | null;
}

/**
 * Where an operation is: the step it is on while it is open (`step 1/2 remote_contribution running`, with the attempt
 * when it is not the first), else how many steps succeeded. One line.
 */
export function StepProgress({ operation: o }: { operation: Progress }) {
  if (o.steps_total === 0) return <span className="muted">no steps</span>;
  const c = o.current_step;
  if (!c) {
    return (
      <span className="nowrap">
        {o.steps_succeeded}/{o.steps_total} succeeded
      </span>
    );
  }
  return (
    <span className="step-progress nowrap">
      step {c.index + 1}/{o.steps_total} <code className="small">{c.kind}</code>{' '}
      <Badge tone={STEP_TONE[c.state] ?? 'muted'}>{c.state === 'planned' ? 'not started' : c.state}</Badge>
      {c.attempts > 1 && <span className="muted small"> attempt {c.attempts}</span>}
    </span>
  );
}
