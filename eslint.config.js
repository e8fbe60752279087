import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.next/',
      'dist/',
      'src/generated/',
      'next-env.d.ts',
      'bench/results/',
      'test-results/',
      'playwright-report/',
      'data/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        crypto: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // Pages, components, the tRPC client glue and the client package (`tether/client`) end up in browser bundles:
    // they may import the server's TYPES (AppRouter) but never its modules. (`server-only` cannot guard src/server:
    // the custom server loads it in plain Node, where that package throws on import. It guards the page-side module
    // that reads the request, src/trpc/server-lookup.ts; tests/unit/architecture.test.ts holds both.)
    files: ['src/app/**', 'src/components/**', 'src/trpc/**', 'src/client/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '@/server/**'],
              allowTypeImports: true,
              message: 'browser code may import only types from src/server',
            },
          ],
        },
      ],
    },
  },
);
