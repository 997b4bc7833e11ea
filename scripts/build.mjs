// Compiles src/ to dist/ (JavaScript and declarations) with tsc, then copies the files under
// src/ that are not TypeScript but are needed at run time (the simulated host's programs)
// beside their compiled neighbours. The build is incremental (dist/.tsbuildinfo), so running
// it again after a small change takes a few seconds; output whose source was removed from
// src/ is deleted so that it cannot be imported by mistake.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

for (const file of files(src).filter((f) => !f.endsWith('.ts'))) {
  const target = join(dist, relative(src, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  chmodSync(target, statSync(file).mode & 0o777);
}

const COMPILED = /(\.d\.ts|\.js)$/;
for (const file of files(dist)) {
  const source = join(src, relative(dist, file));
  if (file.endsWith('.tsbuildinfo') || existsSync(source)) continue;
  if (COMPILED.test(file) && existsSync(source.replace(COMPILED, '.ts'))) continue;
  rmSync(file);
}
