'use client';
// Who is signed in, and which workspace the console is looking at. The gate sends anyone without a session to
// sign-in; roles shown here only shape the UI — the server checks every request itself (SPEC §11).
// SPEC §13: the workspace is the one the address names (`?ws=`, ./workspace-url.ts). An address without one opens the
// workspace this browser used last (else the first) and is then rewritten to name it; an address naming a workspace
// the person cannot see says so, the same whether or not it exists.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { setCsrfToken, useTRPC } from '../trpc/client';
import { ConsoleNav } from './console-nav';
import { FirstWorkspace } from './first-workspace';
import { SessionContext, useConsoleSession, type ConsoleSession, type Me, type WorkspaceRef } from './session-context';
import { ENTITY_PAGE, switchWorkspaceHref, WORKSPACE_PARAM, withWorkspace } from './workspace-url';

export { useConsoleSession, useWorkspaceOnScreen, type Me, type WorkspaceRef } from './session-context';

const WORKSPACE_KEY = 'tether.workspace';

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
  const searchParams = useSearchParams();
  const search = searchParams?.toString() ?? '';
  const named = searchParams?.get(WORKSPACE_PARAM) ?? null;
  // The browser's last workspace: undefined until read (after the first render, so server and browser agree).
  const [remembered, setRemembered] = useState<string | null | undefined>(undefined);

  useEffect(() => {
    if (me.data === null)
      router.replace(`/signin?next=${encodeURIComponent(search ? `${pathname}?${search}` : pathname)}`);
  }, [me.data, pathname, search, router]);
  useEffect(() => {
    setRemembered(window.localStorage.getItem(WORKSPACE_KEY));
  }, []);

  const value = useMemo<ConsoleSession | null>(() => {
    if (!me.data) return null;
    const workspaces = me.data.workspaces;
    const linked = named === null ? null : (workspaces.find((w) => w.id === named) ?? null);
    const fallback = workspaces.find((w) => w.id === remembered) ?? workspaces[0] ?? null;
    // A task's or operation's page shows its entity whatever the address says (the page names the right one).
    const entityPage = ENTITY_PAGE.test(pathname);
    const workspace = named === null || entityPage ? (linked ?? fallback) : linked;
    return {
      me: me.data,
      workspace,
      unknownWorkspace: named !== null && linked === null && !entityPage ? named : null,
      selectWorkspace(id) {
        window.localStorage.setItem(WORKSPACE_KEY, id);
        router.push(switchWorkspaceHref(pathname, new URLSearchParams(search), id));
      },
    };
  }, [me.data, named, remembered, pathname, search, router]);

  const workspaceId = value?.workspace?.id ?? null;
  // The workspace an address names becomes this browser's default for an address without one.
  useEffect(() => {
    if (workspaceId !== null && named === workspaceId) window.localStorage.setItem(WORKSPACE_KEY, workspaceId);
  }, [workspaceId, named]);
  // An address without a workspace is rewritten to name the one it opened (entity pages name their entity's). In
  // place, from the address as it is at that moment (Next keeps useSearchParams in step with the history API): a
  // navigation would land later and could undo what the page wrote to the address meanwhile (a filter just chosen).
  useEffect(() => {
    if (named !== null || workspaceId === null || remembered === undefined || ENTITY_PAGE.test(pathname)) return;
    const { pathname: path, search: query, hash } = window.location;
    window.history.replaceState(null, '', withWorkspace(`${path}${query}${hash}`, workspaceId));
  }, [named, workspaceId, remembered, pathname]);

  // A failed background re-check keeps the page it had; only a session never learned stops here.
  if (me.isError && me.data === undefined) {
    // A failed session check must not leave a blank page: the frame stays (brand and navigation) and the person can
    // retry in place.
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
            <p>
              The console could not check your session: the server did not answer. Your work is safe; try again in a
              moment.
            </p>
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
 * The selected workspace. Without one: an instance admin creates the first (right after setup there is none); anyone
 * else is told who can add them.
 */
export function WithWorkspace({ children }: { children: (w: WorkspaceRef) => ReactNode }) {
  const { me, workspace, unknownWorkspace, selectWorkspace } = useConsoleSession();
  // Kept on while the new token is on screen: the session refetching (and finding the workspace) must not hide it.
  const [onboarding, setOnboarding] = useState(false);
  if (unknownWorkspace !== null && !onboarding) {
    return (
      <div className="state state--empty" role="status" data-testid="unknown-workspace">
        <p>
          <strong>This link names a workspace you cannot see</strong> (or one that does not exist): nothing from it is
          shown here. Ask whoever shared it to add you, or open one of your workspaces:
        </p>
        <ul className="plain-list">
          {me.workspaces.map((w) => (
            <li key={w.id}>
              <button type="button" className="btn btn--link" onClick={() => selectWorkspace(w.id)}>
                {w.prefix} · {w.name}
              </button>
            </li>
          ))}
        </ul>
      </div>
    );
  }
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
        You are not a member of any workspace yet. An admin of a workspace can add you under Settings → Members (signed
        in as {me.email}).
      </div>
    );
  }
  return <>{children(workspace)}</>;
}
