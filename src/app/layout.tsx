// Root layout: document shell and client providers. Pages must never import src/server (they talk to the
// API over HTTP): the only server-side link is the router TYPE in src/trpc/client.tsx.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { TRPCReactProvider } from '../trpc/client';
import './globals.css';

export const metadata: Metadata = {
  title: 'Tether',
  description: 'The same external thing always lands on the same task.',
  // public/favicon.svg (public/favicon.ico for browsers that ask for it by name).
  icons: { icon: [{ url: '/favicon.svg', type: 'image/svg+xml' }], shortcut: '/favicon.ico' },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
