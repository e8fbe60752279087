'use client';
// The console's top bar: brand, navigation, the API reference, live status, workspace picker and the signed-in person
// with Sign out.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { setCsrfToken, useTRPC } from '../trpc/client';
import { ConsoleNav } from './console-nav';
import { LiveIndicator } from './live';
import { useConsoleSession } from './session';

export function ConsoleHeader() {
  const { me, workspace, selectWorkspace } = useConsoleSession();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const logout = useMutation(
    trpc.session.logout.mutationOptions({
      onSettled: () => {
        setCsrfToken(null);
        queryClient.clear();
        window.location.assign('/signin');
      },
    }),
  );
  return (
    <header className="console-header">
      <Link href="/" className="console-brand">
        Tether
      </Link>
      <ConsoleNav />
      <div className="console-header__end">
        <Link href="/docs/api" className="console-help">
          API reference
        </Link>
        <LiveIndicator />
        {me.workspaces.length > 0 && (
          <label className="ws-picker">
            <span className="visually-hidden">Workspace</span>
            <select value={workspace?.id ?? ''} onChange={(e) => selectWorkspace(e.target.value)}>
              {me.workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.prefix} · {w.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="whoami" title={`Signed in as ${me.email}`}>
          {me.email}
          {workspace && <span className="muted"> ({workspace.role})</span>}
        </span>
        <button type="button" className="btn" onClick={() => logout.mutate()} disabled={logout.isPending}>
          Sign out
        </button>
      </div>
    </header>
  );
}
