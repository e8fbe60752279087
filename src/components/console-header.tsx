'use client';
// The console's top bar: brand, navigation, the API reference, live status, workspace picker and the signed-in person
// with Sign out. On a small screen (at 390 px the full bar would take ~250 px) it is one line — brand, live status and
// a Menu button that opens navigation, workspace and account below it; the menu closes when the page changes. At 1440
// px the whole bar is one row: the address and the picker give way (ellipsis) before anything wraps. Links name the
// workspace.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useState } from 'react';
import { setCsrfToken, useTRPC } from '../trpc/client';
import { ConsoleLink } from './console-link';
import { ConsoleNav } from './console-nav';
import { LiveIndicator } from './live';
import { useConsoleSession } from './session';
import { TimeZoneToggle } from './time';

/**
 * Links beside the pages (documentation and the like), shown in the bar and in the compact menu alike: integrators
 * find the REST reference from any page.
 */
const HEADER_LINKS: ReadonlyArray<{ href: string; label: string }> = [{ href: '/docs/api', label: 'API reference' }];

export function ConsoleHeader() {
  const { me, workspace, selectWorkspace } = useConsoleSession();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pathname = usePathname() ?? '/';
  // Open for the page it was opened on: navigating closes it without an effect.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
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
      <ConsoleLink href="/" className="console-brand">
        Tether
      </ConsoleLink>
      <div className="console-header__live">
        <LiveIndicator />
      </div>
      <button
        type="button"
        className="btn console-menu-toggle"
        aria-expanded={open}
        aria-controls="console-menu"
        onClick={() => setOpenOn(open ? null : pathname)}
      >
        Menu
      </button>
      <div id="console-menu" className="console-menu" data-open={open}>
        <ConsoleNav />
        {HEADER_LINKS.length > 0 && (
          <ul className="console-links">
            {HEADER_LINKS.map((l) => (
              <li key={l.href}>
                <Link href={l.href} className="console-help">
                  {l.label}
                </Link>
              </li>
            ))}
          </ul>
        )}
        <div className="console-header__end">
          {me.workspaces.length > 0 && (
            <label className="ws-picker">
              <span className="visually-hidden">Workspace</span>
              <select value={workspace?.id ?? ''} onChange={(e) => selectWorkspace(e.target.value)}>
                {!workspace && (
                  <option value="" disabled>
                    Choose a workspace
                  </option>
                )}
                {me.workspaces.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.prefix} · {w.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <TimeZoneToggle />
          <span className="whoami" title={`Signed in as ${me.email}`}>
            {me.email}
            {workspace && <span className="muted"> ({workspace.role})</span>}
          </span>
          <button type="button" className="btn" onClick={() => logout.mutate()} disabled={logout.isPending}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
