// npm run build, after tsc: bundles the CLI (src/main.ts) into dist/bundle/, which bin/ringhook.js
// runs (#44). Each command line paid most of its start-up CPU in Node's ESM loader: ~220 modules
// (~95 of them zod's) resolved, read and compiled one by one. Here our own code, zod and citty are a
// few files: one for the root, one per command (esbuild's code splitting keeps the lazy import() of
// each command in src/main.ts lazy) and shared chunks. The other packages stay outside, loaded from
// node_modules as before (native addons, packages that read their own files). The tsc output in
// dist/ stays: the SEA build and the tools that import single modules use it.
// dist/bundle/inputs.json lists, for each output file, the source modules and packages inside it,
// so that test/cli/start-up.test.ts still sees which modules a command line loads.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'bundle');
/** The packages inside the bundle: many small modules each, loaded by every command line. */
const BUNDLED = new Set(['zod', 'citty']);

fs.rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  // The checkpoint thread is started from its file next to the module that starts it (checkpointer.ts).
  entryPoints: ['src/main.ts', 'src/store/sqlite/checkpoint-worker.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Every file directly in dist/bundle/: import.meta.url two levels below the repository, as in
  // dist/lib/ (src/lib/assets.ts).
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [
    {
      // zod's namespace `z` carries `z.locales`, its error messages in 64 languages (~420 KB of the
      // ~750 KB zod brings), which esbuild cannot leave out of a namespace object; ringhook uses none
      // of them (zod's messages are English, zod's own default, loaded by its classic entry from
      // locales/en.js): `z.locales` is left with English alone.
      name: 'zod-english-only',
      setup(b) {
        b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
          /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
            ? { path: path.join(args.resolveDir, '../locales/en.js'), namespace: 'zod-english-only' }
            : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
          contents: `export { default as en } from ${JSON.stringify(args.path)};`,
          resolveDir: path.dirname(args.path),
        }));
      },
    },
    {
      name: 'outside-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('node:')) return { path: args.path, external: true };
          const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
          return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
        });
      },
    },
  ],
});

const inputs = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (!file.endsWith('.js')) continue;
  inputs[path.basename(file)] = Object.keys(output.inputs).sort();
}
fs.writeFileSync(path.join(outdir, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
