// SPEC §4.1 step 9: run the planned steps for a handle. (Step machinery: issue 5.)
import type { Services } from '../../services';
import type { CreationHandle } from './operation';

export async function runPlannedSteps(services: Services, handle: CreationHandle): Promise<void> {
  if (handle.plan.steps.length > 0) throw new Error('creation steps are not implemented in this build');
  void services;
}
