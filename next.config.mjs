// Next serves only the console pages; the API is answered by the custom server (src/server/http/server.ts)
// before a request ever reaches Next.
import { PHASE_DEVELOPMENT_SERVER } from 'next/constants.js';

// Tether sends nothing anywhere unasked: no Next telemetry from `next build` or the server. Next reads the
// variable after loading this file, so setting it here is enough.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';

/**
 * Security headers for HTML pages. Next's App Router streams inline scripts, hence 'unsafe-inline' for
 * scripts; the development server additionally needs eval and a websocket for hot reload.
 * @param {boolean} dev
 */
function pageHeaders(dev) {
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${dev ? ' ws: wss:' : ''}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return [
    { key: 'Content-Security-Policy', value: csp },
    { key: 'Referrer-Policy', value: 'same-origin' },
    { key: 'X-Frame-Options', value: 'DENY' },
    { key: 'X-Content-Type-Options', value: 'nosniff' },
  ];
}

/**
 * @param {string} phase
 * @returns {import('next').NextConfig}
 */
export default function config(phase) {
  const dev = phase === PHASE_DEVELOPMENT_SERVER;
  return {
    reactStrictMode: true,
    poweredByHeader: false,
    // `npm test` type-checks the whole project (tsc --noEmit, the same tsconfig) just before it builds: it sets
    // TETHER_TYPES_CHECKED=1 so that next build does not check it a second time. Every other build checks.
    typescript: { ignoreBuildErrors: process.env.TETHER_TYPES_CHECKED === '1' },
    // Native and server-only packages stay out of any page bundle even if something imports them by mistake.
    serverExternalPackages: [
      'better-sqlite3',
      'pg',
      '@prisma/client',
      '@prisma/adapter-better-sqlite3',
      '@prisma/adapter-pg',
    ],
    async headers() {
      return [{ source: '/:path*', headers: pageHeaders(dev) }];
    },
  };
}
