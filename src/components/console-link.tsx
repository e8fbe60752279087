'use client';
// SPEC §13: every console URL names its workspace (`?ws=`, ./workspace-url.ts). Links inside the console are built from
// the workspace on screen (ConsoleLink); the browser's remembered choice is only the default for an address without
// one (components/session.tsx).
import Link from 'next/link';
import type { ComponentProps } from 'react';
import { useSearchParams } from 'next/navigation';
import { useEffect } from 'react';
import { useWorkspaceOnScreen } from './session-context';
import { WORKSPACE_PARAM, withWorkspace } from './workspace-url';

/** Builds console hrefs that name the workspace on screen. */
export function useWorkspaceHref(): (href: string) => string {
  const workspace = useWorkspaceOnScreen();
  return (href) => withWorkspace(href, workspace?.id);
}

/** A link inside the console: next/link with the workspace on screen in its address. */
export function ConsoleLink({ href, ...rest }: Omit<ComponentProps<typeof Link>, 'href'> & { href: string }) {
  const workspace = useWorkspaceOnScreen();
  return <Link href={withWorkspace(href, workspace?.id)} {...rest} />;
}

/**
 * A task's or operation's page names the entity's workspace in its address (and the header shows it), whatever the
 * link it was opened from said.
 */
export function useNameWorkspace(workspaceId: string | undefined): void {
  const named = useSearchParams()?.get(WORKSPACE_PARAM);
  useEffect(() => {
    if (!workspaceId || named === workspaceId) return;
    // In place, as the gate does (components/session.tsx).
    const next = new URLSearchParams(window.location.search);
    next.set(WORKSPACE_PARAM, workspaceId);
    window.history.replaceState(null, '', `${window.location.pathname}?${next.toString()}`);
  }, [workspaceId, named]);
}
