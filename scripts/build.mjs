// Builds what runs: dist/ (tsc) for the library entry and its declarations, and dist/bin/ (an
// esbuild bundle of the tsc output) for the `praxis` command.
//
// 1. tsc compiles src/ to dist/ (JavaScript and declarations, incremental: dist/.tsbuildinfo),
//    and the files under src/ that are not TypeScript (the simulated host's programs) are copied
//    beside their compiled neighbours. Output whose source was removed from src/ is deleted.
//    `--no-check` emits without type-checking (tsc --noCheck): scripts/test-prepare.mjs passes it,
//    as its typecheck lane checks the same sources under the same options at the same time; the
//    second check of src/ cost about 10 s of CPU of the build's 22 on 2 cores. The output is the
//    same JavaScript (declarations may list an inferred type's members in another order), and a
//    later build without it checks what was not (tsc records it in dist/.tsbuildinfo).
// 2. esbuild bundles dist/cli/main.js into dist/bin/: the command's own modules and its
//    dependencies in a few files, split at the dynamic imports so that a command still loads
//    only what it needs. Node loads a handful of files instead of about a thousand ES modules,
//    which halves the start-up of `praxis serve`. dist/bin/ is two levels below the package
//    root like src/<layer>/, so the modules' `import.meta.url` paths (package.json, web/dist)
//    hold; the simulated host's programs are copied beside the bundle for the same reason.
//    Left outside the bundle: better-sqlite3 (native), and packages that read their own files
//    at run time (@fastify/swagger and swagger-ui's assets, pino's transport worker).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const bundle = join(dist, 'bin');
const require = createRequire(import.meta.url);

const tsc = require.resolve('typescript/bin/tsc');
const noCheck = process.argv.includes('--no-check') ? ['--noCheck'] : [];
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), ...noCheck], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

function copyWithMode(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  chmodSync(to, statSync(from).mode & 0o777);
}

const assets = files(src).filter((f) => !f.endsWith('.ts'));
for (const file of assets) copyWithMode(file, join(dist, relative(src, file)));

const COMPILED = /(\.d\.ts|\.js)$/;
for (const file of files(dist)) {
  if (file.startsWith(`${bundle}/`) || file.endsWith('.tsbuildinfo')) continue;
  const source = join(src, relative(dist, file));
  if (existsSync(source)) continue;
  if (COMPILED.test(file) && existsSync(source.replace(COMPILED, '.ts'))) continue;
  rmSync(file);
}

rmSync(bundle, { recursive: true, force: true });
const esbuild = await import('esbuild');
await esbuild.build({
  entryPoints: { main: join(dist, 'cli', 'main.js') },
  outdir: bundle,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['better-sqlite3', 'pg-native', '@fastify/swagger', '@fastify/swagger-ui', 'pino'],
  // CommonJS dependencies call require() for Node's modules; an ES module has none of its own.
  banner: { js: "import { createRequire as __praxisCreateRequire } from 'node:module';\nconst require = __praxisCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
for (const file of assets.filter((f) => f.includes(`${join('host', 'simulated')}/`))) copyWithMode(file, join(bundle, basename(file)));
