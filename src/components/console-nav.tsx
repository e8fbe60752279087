'use client';
// The console's primary navigation (SPEC §13 pages); every link names the workspace on screen.
import { usePathname } from 'next/navigation';
import { ConsoleLink } from './console-link';

export const NAV_ITEMS = [
  { href: '/', label: 'Overview' },
  { href: '/tasks', label: 'Tasks' },
  { href: '/unsettled', label: 'Unsettled' },
  { href: '/operations', label: 'Operations' },
  { href: '/releases', label: 'Releases' },
  { href: '/settings', label: 'Settings' },
] as const;

function isCurrent(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
}

export function ConsoleNav() {
  const pathname = usePathname() ?? '/';
  return (
    <nav aria-label="Console" className="console-nav">
      <ul>
        {NAV_ITEMS.map((item) => (
          <li key={item.href}>
            <ConsoleLink href={item.href} aria-current={isCurrent(pathname, item.href) ? 'page' : undefined}>
              {item.label}
            </ConsoleLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
