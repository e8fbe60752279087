// Sign-in and first-run setup: a centred card, no console navigation (there is no session yet).
import type { ReactNode } from 'react';

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main id="main" className="auth">
      <div className="auth__card">
        <p className="auth__brand">Tether</p>
        {children}
      </div>
    </main>
  );
}
