'use client';
// Who is signed in, and which workspace the console is looking at. The gate sends anyone without a session to
// sign-in; roles shown here only shape the UI — the server checks every request itself (SPEC §11).
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { setCsrfToken, useTRPC } from '../trpc/client';
import type { AppRouter } from '../server/api/root';
import type { inferRouterOutputs } from '@trpc/server';
import { ConsoleNav } from './console-nav';
import { FirstWorkspace } from './first-workspace';

export type Me = NonNullable<inferRouterOutputs<AppRouter>['session']['me']>;
export type WorkspaceRef = Me['workspaces'][number];

interface ConsoleSession {
  me: Me;
  workspace: WorkspaceRef | null;
  selectWorkspace(id: string): void;
}

const SessionContext = createContext<ConsoleSession | null>(null);
const WORKSPACE_KEY = 'tether.workspace';

export function useConsoleSession(): ConsoleSession {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useConsoleSession outside ConsoleGate');
  return s;
}

/** The session query; keeps the CSRF token the API client sends in step with the signed-in session. */
export function useMe(initialMe?: Me | null) {
  const trpc = useTRPC();
  const me = useQuery(
    trpc.session.me.queryOptions(undefined, {
      staleTime: 60_000,
      refetchOnWindowFocus: true,
      ...(initialMe !== undefined ? { initialData: initialMe } : {}),
    }),
  );
  useEffect(() => {
    if (me.data !== undefined) setCsrfToken(me.data?.csrf_token ?? null);
  }, [me.data]);
  return me;
}

/** `initialMe`: the session as the server read it for this page (undefined: unknown, ask from the browser). */
export function ConsoleGate({ children, initialMe }: { children: ReactNode; initialMe?: Me | null }) {
  const me = useMe(initialMe);
  const router = useRouter();
  const pathname = usePathname() ?? '/';
  const [selected, setSelected] = useState<string | null>(null);

  useEffect(() => {
    if (me.data === null) router.replace(`/signin?next=${encodeURIComponent(pathname)}`);
  }, [me.data, pathname, router]);
  useEffect(() => {
    setSelected(window.localStorage.getItem(WORKSPACE_KEY));
  }, []);

  const value = useMemo<ConsoleSession | null>(() => {
    if (!me.data) return null;
    const workspaces = me.data.workspaces;
    const workspace = workspaces.find((w) => w.id === selected) ?? workspaces[0] ?? null;
    return {
      me: me.data,
      workspace,
      selectWorkspace(id) {
        window.localStorage.setItem(WORKSPACE_KEY, id);
        setSelected(id);
      },
    };
  }, [me.data, selected]);

  // A failed background re-check keeps the page it had; only a session never learned stops here.
  if (me.isError && me.data === undefined) {
    // Issue 15: the frame stays (brand and navigation) and the person can retry in place.
    return (
      <>
        <header className="console-header">
          <Link href="/" className="console-brand">
            Tether
          </Link>
          <ConsoleNav />
        </header>
        <main id="main" className="console-main">
          <div className="state state--error" role="alert">
            <p>The console could not check your session: the server did not answer. Your work is safe; try again in a moment.</p>
            <button type="button" className="btn" onClick={() => void me.refetch()} disabled={me.isFetching}>
              {me.isFetching ? 'Trying…' : 'Try again'}
            </button>
          </div>
        </main>
      </>
    );
  }
  if (!value) {
    return (
      <div className="state state--loading" role="status">
        {me.data === null ? 'Redirecting to sign-in…' : 'Loading…'}
      </div>
    );
  }
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/**
 * The selected workspace. Without one: an instance admin creates the first (issue 15: right after setup there is
 * none); anyone else is told who can add them.
 */
export function WithWorkspace({ children }: { children: (w: WorkspaceRef) => ReactNode }) {
  const { me, workspace, selectWorkspace } = useConsoleSession();
  // Kept on while the new token is on screen: the session refetching (and finding the workspace) must not hide it.
  const [onboarding, setOnboarding] = useState(false);
  if (!workspace || onboarding) {
    if (me.is_admin) {
      return (
        <FirstWorkspace
          onStarted={() => setOnboarding(true)}
          onFinished={(id) => {
            selectWorkspace(id);
            setOnboarding(false);
          }}
        />
      );
    }
    return (
      <div className="state state--empty">
        You are not a member of any workspace yet. An admin of a workspace can add you under Settings → Members (signed in as {me.email}).
      </div>
    );
  }
  return <>{children(workspace)}</>;
}
