// SPEC §12: attest the real catalog before any external-identity read or write.
// (Foundation helper expands this: per-dialect catalog reads live in dialect/*-attest.ts.)
import type { Db } from './types';

export interface AttestationResult {
  ready: boolean;
  reasons: string[];
  /** Legacy rows (held identity, no settlement, no creation operation) that block readiness. */
  legacy: Array<{ task_id: string; workspace_id: string; external_id: string }>;
  checkedAt: string;
}

export async function attest(db: Db): Promise<AttestationResult> {
  void db;
  return { ready: true, reasons: [], legacy: [], checkedAt: new Date().toISOString() };
}
