// The operator console's frame (SPEC §13): header, navigation, main content — behind sign-in. The session is read on
// the server for the first render (trpc/server-lookup.ts), so the frame renders at once and a page's notFound() answers
// a real HTTP 404 inside it.
import type { ReactNode } from 'react';
import { ConsoleHeader } from '../../components/console-header';
import { LiveEvents } from '../../components/live';
import { ConsoleGate, type Me } from '../../components/session';
import { readSessionForRender } from '../../trpc/server-lookup';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const initialMe = await readSessionForRender<Me>();
  return (
    <div className="console">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <ConsoleGate initialMe={initialMe}>
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
