'use client';
// The signed-in person and the workspace on screen, as a React context: provided by the gate (./session.tsx), read by
// every part of the console (links build their addresses from it, ./console-link.tsx).
import type { inferRouterOutputs } from '@trpc/server';
import { createContext, useContext } from 'react';
import type { AppRouter } from '../server/api/root';

export type Me = NonNullable<inferRouterOutputs<AppRouter>['session']['me']>;
export type WorkspaceRef = Me['workspaces'][number];

export interface ConsoleSession {
  me: Me;
  workspace: WorkspaceRef | null;
  /** The address names a workspace this person cannot see (or that does not exist): its id, as named. */
  unknownWorkspace: string | null;
  /** Opens the same page in another workspace (./workspace-url.ts, switchWorkspaceHref). */
  selectWorkspace(id: string): void;
}

export const SessionContext = createContext<ConsoleSession | null>(null);

export function useConsoleSession(): ConsoleSession {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useConsoleSession outside ConsoleGate');
  return s;
}

/** The workspace on screen, or null outside the gate (the frame shown when the session could not be checked). */
export function useWorkspaceOnScreen(): WorkspaceRef | null {
  return useContext(SessionContext)?.workspace ?? null;
}
