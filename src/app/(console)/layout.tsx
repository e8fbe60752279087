// The operator console's frame (SPEC §13): header, navigation, main content.
import Link from 'next/link';
import type { ReactNode } from 'react';
import { ConsoleNav } from '../../components/console-nav';

export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <div className="console">
      <header className="console-header">
        <Link href="/" className="console-brand">
          Tether
        </Link>
        <ConsoleNav />
      </header>
      <main className="console-main">{children}</main>
    </div>
  );
}
