// Compiles src/ and test/ to JavaScript for one test run, so the test processes run without a
// TypeScript loader. Under a loader (tsx) every module a test file loads, fastify and kysely's
// included, passes through the loader's hooks on a thread of their own: about 2.5 s of CPU more
// per test file than plain node, for some 80 files per run.
//
// esbuild transforms each file alone (no type checking: `npm test` type-checks first), into two
// folders beside src/ and test/, at the same depth, so every path a module computes from its own
// `import.meta.url` (`../../package.json`, `../../web/dist`, `../../bin/praxis.js`) still
// reaches the real files:
//   .praxis-test-<pid>-src/   the compiled src/ (its other files linked)
//   .praxis-test-<pid>-test/  the compiled test/, and every test file linked beside it: fixtures
//                             are read, and helper programs (`*.ts`) spawned with tsx, through
//                             their links
// Relative imports are rewritten to the compiled files (`../../src/x.ts` becomes
// `../../.praxis-test-<pid>-src/x.js`); the few of web/src/ that tests import are bundled in. The folders are the run's own (several runs may share a
// checkout), ignored by git, and removed after the run; folders left by a run that no longer
// exists are removed by the next.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const PREFIX = '.praxis-test-';

/** Every file under `dir`, recursively. */
export function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function removeStale(root) {
  for (const name of readdirSync(root)) {
    const owner = name.startsWith(PREFIX) ? Number.parseInt(name.slice(PREFIX.length), 10) : NaN;
    if (Number.isInteger(owner) && owner !== process.pid && !alive(owner)) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/**
 * Builds the run's compiled tree; resolves to `{ testFile(path), remove() }`: where the compiled
 * form of a test file or a source module (a path relative to `root`, `test/...ts` or
 * `src/...ts`) is, and how to remove the tree.
 */
export async function buildTests(root) {
  removeStale(root);
  const trees = { src: `${PREFIX}${process.pid}-src`, test: `${PREFIX}${process.pid}-test` };
  const remove = () => {
    for (const tree of Object.values(trees)) rmSync(join(root, tree), { recursive: true, force: true });
  };
  remove();
  const compiledPath = (path) => {
    const rel = relative(root, path);
    const top = rel.split(sep)[0];
    return trees[top] ? join(root, trees[top], rel.slice(top.length + 1)) : undefined;
  };

  // Rewrites each relative import of a .ts file to its compiled twin; everything is external,
  // so each output holds its own module only and keeps its place in the tree.
  const rewrite = {
    name: 'compiled-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (!args.path.startsWith('.') || !args.path.endsWith('.ts')) return { path: args.path, external: true };
        const target = compiledPath(resolve(args.resolveDir, args.path));
        const from = compiledPath(args.importer);
        // A TypeScript file outside src/ and test/ (the console's web/src) is bundled into its importer.
        if (!target || !from) return undefined;
        const spec = relative(dirname(from), target.replace(/\.ts$/, '.js')).split(sep).join('/');
        return { path: spec.startsWith('.') ? spec : `./${spec}`, external: true };
      });
    },
  };

  const esbuild = await import('esbuild');
  for (const top of Object.keys(trees)) {
    const dir = join(root, top);
    const out = join(root, trees[top]);
    const all = files(dir);
    const sources = all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    mkdirSync(out);
    writeFileSync(join(out, '.gitignore'), '*\n');
    await esbuild.build({
      entryPoints: sources,
      outbase: dir,
      outdir: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      sourcemap: 'linked',
      plugins: [rewrite],
      logLevel: 'error',
    });
    // The files that are not compiled (fixtures, programs) and, for test/, the sources too.
    for (const file of all) {
      if (file.endsWith('.ts') && top === 'src') continue;
      const link = compiledPath(file);
      if (existsSync(link)) continue;
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(file, link);
    }
  }
  return {
    testFile: (path) => compiledPath(join(root, path)).replace(/\.ts$/, '.js'),
    remove,
  };
}
