// The operator console's frame (SPEC §13): header, navigation, main content — behind sign-in.
import type { ReactNode } from 'react';
import { ConsoleHeader } from '../../components/console-header';
import { LiveEvents } from '../../components/live';
import { ConsoleGate } from '../../components/session';

export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <div className="console">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <ConsoleGate>
        <LiveEvents>
          <ConsoleHeader />
          <main id="main" className="console-main">
            {children}
          </main>
        </LiveEvents>
      </ConsoleGate>
    </div>
  );
}
