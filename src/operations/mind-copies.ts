// Forking, exporting and importing minds, as the API and CLI offer them (administrators only:
// a copy of a mind carries its policy). See docs/mind.md, "Forks, exports and imports".

import type { Principal } from '../access/permissions.ts';
import { InputError, joinPath } from '../core/errors.ts';
import type { MindBundle } from '../mind/bundle.ts';
import { exportMind, forkMind, importMind, type MadeMind, type MindCopy } from '../mind/copies.ts';
import type { Store } from '../store/index.ts';
import { Conflict, NotFound } from './errors.ts';
import { checkMindName, resolveMind } from './minds.ts';

function made(result: MadeMind, namePath: string): MindCopy {
  if (result.ok) return result.copy;
  if (result.nameTaken) throw new Conflict(namePath, result.problems[0]!.message, 'name_taken');
  throw new InputError(result.problems);
}

export async function exportMindBundle(store: Store, principal: Principal, mindRef: string): Promise<MindBundle> {
  const mind = await resolveMind(store, principal, mindRef);
  const bundle = await exportMind(store, mind.id);
  if (!bundle) throw new NotFound('mind', `no mind named or numbered "${mindRef}"`, 'unknown_mind');
  return bundle;
}

/** A disabled sandbox copy of the mind, named `name`. */
export async function forkMindCopy(store: Store, principal: Principal, sourceRef: string, name: string, namePath = 'name'): Promise<MindCopy> {
  checkMindName(name, namePath);
  const source = await resolveMind(store, principal, sourceRef);
  return made(await forkMind(store, source, name, principal.operator), namePath);
}

export interface ImportOptions {
  /** The new mind's name; by default the bundle's own. */
  name?: string | undefined;
  /** Where the surface took the name from (`name`, `--as`). */
  namePath?: string;
  /** Where the surface took the bundle from: its problems' paths are placed below it. */
  bundlePath?: string;
}

/** A new mind from a bundle, named as asked or as the bundle names it. */
export async function importMindBundle(store: Store, principal: Principal, bundle: unknown, options: ImportOptions = {}): Promise<MindCopy> {
  const { name } = options;
  const inBundle = (path: string) => (options.bundlePath ? joinPath(options.bundlePath, path) : path);
  const namePath = name === undefined ? inBundle('mind.name') : (options.namePath ?? 'name');
  if (name !== undefined) checkMindName(name, namePath);
  else {
    // The bundle's own name is held to the same rule before it is used.
    const own = (bundle as { mind?: { name?: unknown } } | null)?.mind?.name;
    if (typeof own === 'string') checkMindName(own, namePath);
  }
  const result = await importMind(store, bundle, principal.operator, name);
  if (!result.ok && !result.nameTaken) {
    throw new InputError(result.problems.map((p) => ({ ...p, path: inBundle(p.path) })));
  }
  return made(result, namePath);
}
