// Lint: typescript-eslint's strict type-checked preset over src/, bench/ and test/,
// the untyped recommended rules over the .mjs scripts. `npm run check:lint` runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'reports/', '.stryker-tmp/', 'examples/'] },
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      // Counts, bytes and flags are interpolated everywhere in messages and reports; a nullable, any or an object still is not
      // (options replace the preset's, so each is named).
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowAny: false, allowNullish: false, allowRegExp: false, allowNever: false },
      ],
      // `(x) => void thing(x)` noise in callbacks; `return reply(res, 404)` as an early exit from a void function (handlers)
      // is house style; a void result used as a value elsewhere is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
      // `[...text]` is how this code counts and splits by code point, on purpose (globs, hostlists, column widths).
      '@typescript-eslint/no-misused-spread': ['error', { allow: ['string'] }],
      // `const { attention: _old, ...rest } = x` is how a key is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // In a test or a benchmark `rows[0]!` is the assertion: a missing row throws right there and the test fails, which is the point.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // A test reads parsed JSON (stdout, HTTP bodies, files) and its assertions check the shape: a wrong one fails right there.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // `out += chunk` is how a test collects a stream, whose 'data' chunks @types/node types as any (other mixes stay errors).
      '@typescript-eslint/restrict-plus-operands': [
        'error',
        { allowAny: true, allowBoolean: false, allowNullish: false, allowNumberAndString: false, allowRegExp: false },
      ],
      // A missing value in an expected text or a failure message shows as `undefined`, and the assertion fails visibly.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowNullish: true, allowAny: false, allowRegExp: false, allowNever: false },
      ],
      // Test doubles implement async interfaces (`tick`, `run`, `close`) with bodies that need no await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly' },
    },
  },
);
