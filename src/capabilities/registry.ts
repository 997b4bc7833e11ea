// The closed capability vocabulary. A registry is built once at start-up from a fixed list of
// definitions (the catalogue's, catalogue/index.ts), compiles every parameter schema up front
// and is then frozen: there is no way to add, replace or unlock a capability while running. It
// holds definitions only; invoking a capability is the capability service's job.

import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonObject, ValidationIssue } from '../core/plan.ts';
import { BUILTIN_CAPABILITIES } from './catalogue/index.ts';
import type { CapabilityDefinition } from './definition.ts';
import { PARAM_FORMATS } from './formats.ts';
import type { CapabilityModule } from './module.ts';
import { checkParamLimits } from './policy/param-limits.ts';

export interface CapabilityRegistry {
  /** The definition, or undefined when no capability has that name. */
  get(name: string): CapabilityDefinition | undefined;
  has(name: string): boolean;
  /** Every definition, in registration order. */
  list(): readonly CapabilityDefinition[];
  /**
   * Checks parameters against the capability's schema. Each problem is one issue with code
   * `invalid_params` (or `unknown_capability`) and a path such as `params.unit`.
   */
  checkParams(name: string, params: unknown): ValidationIssue[];
  /**
   * The policy target the parameters imply (the unit, the URL's host, `host`). Empty when the
   * capability is unknown or the parameters fail its schema: no target is derived from
   * parameters that would be refused anyway.
   */
  targetOf(name: string, params: unknown): string;
  /**
   * Checks parameter limits (of a capability request or grant) against the capability's
   * parameters: each names a real parameter and uses a known limit. Issues carry `path`.
   */
  checkParamLimits(name: string, limits: unknown, path: string): ValidationIssue[];
}

const CAPABILITY_NAME = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule.default }).default;

/** Builds the registry. Throws on a malformed definition or a duplicate name: both are bugs. */
export function createRegistry(definitions: readonly CapabilityDefinition[]): CapabilityRegistry {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    removeAdditional: false,
    coerceTypes: false,
    useDefaults: false,
    // Errors carry the offending value and its schema, for readable messages.
    verbose: true,
  });
  addFormats(ajv);
  const formatReasons = new Map<string, (value: string) => string | null>();
  for (const format of PARAM_FORMATS) {
    ajv.addFormat(format.name, { type: 'string', validate: (value: string) => format.reason(value) === null });
    formatReasons.set(format.name, format.reason);
  }

  const byName = new Map<string, { definition: CapabilityDefinition; check: ValidateFunction }>();
  for (const source of definitions) {
    assertWellFormed(source);
    if (byName.has(source.name)) throw new Error(`capability ${source.name} is defined twice`);
    const definition = freezeDefinition(source);
    const check = ajv.compile(definition.paramsSchema);
    byName.set(definition.name, { definition, check });
  }
  const listed = Object.freeze([...byName.values()].map((entry) => entry.definition));

  const checkParams = (name: string, params: unknown): ValidationIssue[] => {
    const entry = byName.get(name);
    if (!entry) return [{ code: 'unknown_capability', path: 'capability', message: `no capability is registered as "${name}"` }];
    if (entry.check(params)) return [];
    return (entry.check.errors ?? []).map((error) => issueOf(error, name, formatReasons));
  };

  const registry: CapabilityRegistry = {
    get: (name) => byName.get(name)?.definition,
    has: (name) => byName.has(name),
    list: () => listed,
    checkParams,
    targetOf(name, params) {
      const entry = byName.get(name);
      if (!entry || !entry.check(params)) return '';
      const target = entry.definition.target(params as JsonObject);
      return typeof target === 'string' ? target : '';
    },
    checkParamLimits(name, limits, path) {
      const entry = byName.get(name);
      return entry ? checkParamLimits(limits, parameterNames(entry.definition), path) : [];
    },
  };
  return Object.freeze(registry);
}

function parameterNames(definition: CapabilityDefinition): string[] {
  const properties = definition.paramsSchema.properties;
  return properties && typeof properties === 'object' && !Array.isArray(properties) ? Object.keys(properties) : [];
}

let builtins: CapabilityRegistry | undefined;

/**
 * The registry of the catalogue's capabilities (built once; it is immutable), or of the catalogue
 * and `extra` modules after it (tests add their own capabilities this way; a new registry each time).
 */
export function builtinRegistry(options: { extra?: readonly CapabilityModule[] } = {}): CapabilityRegistry {
  if (options.extra && options.extra.length > 0) return createRegistry([...BUILTIN_CAPABILITIES, ...options.extra.map((module) => module.definition)]);
  builtins ??= createRegistry(BUILTIN_CAPABILITIES);
  return builtins;
}

function assertWellFormed(d: CapabilityDefinition): void {
  const problem = (why: string) => new Error(`capability ${String(d?.name)}: ${why}`);
  if (typeof d?.name !== 'string' || !CAPABILITY_NAME.test(d.name)) throw problem('name must be dotted lower-case words');
  if (typeof d.readOnly !== 'boolean' || typeof d.idempotent !== 'boolean' || typeof d.locked !== 'boolean') {
    throw problem('readOnly, idempotent and locked must be booleans');
  }
  if (!Number.isFinite(d.timeoutSeconds) || d.timeoutSeconds <= 0) throw problem('timeoutSeconds must be positive');
  for (const key of ['wall_seconds', 'network_ops', 'money'] as const) {
    const value = d.cost?.[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw problem(`cost.${key} must be a non-negative number`);
  }
  if (typeof d.target !== 'function') throw problem('target must be a function');
  if (!Array.isArray(d.observes) || d.observes.length === 0 || d.observes.some((f) => typeof f !== 'string' || f === '')) {
    throw problem('observes must list at least one field');
  }
  assertClosedObjects(d.paramsSchema, 'paramsSchema', problem);
  if (d.paramsSchema.type !== 'object') throw problem('paramsSchema must describe an object');
}

/** Every object in a parameter schema must refuse properties it does not name. */
function assertClosedObjects(schema: unknown, at: string, problem: (why: string) => Error): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' && s.additionalProperties !== false) throw problem(`${at} must set additionalProperties: false`);
  if (typeof s.properties === 'object' && s.properties !== null) {
    for (const [key, sub] of Object.entries(s.properties)) assertClosedObjects(sub, `${at}.properties.${key}`, problem);
  }
  if (s.items !== undefined) assertClosedObjects(s.items, `${at}.items`, problem);
}

function freezeDefinition(d: CapabilityDefinition): CapabilityDefinition {
  const target = d.target;
  return Object.freeze({
    name: d.name,
    description: d.description,
    readOnly: d.readOnly,
    idempotent: d.idempotent,
    timeoutSeconds: d.timeoutSeconds,
    paramsSchema: deepFreeze(structuredClone(d.paramsSchema)),
    target: (params: JsonObject) => target(params),
    locked: d.locked,
    cost: Object.freeze({ wall_seconds: d.cost.wall_seconds, network_ops: d.cost.network_ops, money: d.cost.money }),
    observes: Object.freeze([...d.observes]),
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function pathOf(instancePath: string, extra?: string): string {
  const segments =
    instancePath === ''
      ? []
      : instancePath
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  let path = 'params';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function issueOf(error: ErrorObject, capability: string, formatReasons: ReadonlyMap<string, (value: string) => string | null>): ValidationIssue {
  const p = error.params as Record<string, unknown>;
  const described = (error.parentSchema as { description?: unknown } | undefined)?.description;
  let path = pathOf(error.instancePath);
  let message: string;
  switch (error.keyword) {
    case 'required':
      path = pathOf(error.instancePath, String(p.missingProperty));
      message = `${capability} needs the parameter "${String(p.missingProperty)}"`;
      break;
    case 'additionalProperties':
      path = pathOf(error.instancePath, String(p.additionalProperty));
      message = `"${String(p.additionalProperty)}" is not a parameter of ${capability}`;
      break;
    case 'type':
      message = `must be ${article(String(p.type))}, got ${kindOf(error.data)}`;
      break;
    case 'minimum':
    case 'maximum':
      message = `must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p.limit)}`;
      break;
    case 'minLength':
    case 'maxLength':
      message = `must be ${error.keyword === 'minLength' ? 'at least' : 'at most'} ${String(p.limit)} characters long`;
      break;
    case 'enum':
      message = `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'format': {
      const reason = typeof error.data === 'string' ? formatReasons.get(String(p.format))?.(error.data) : null;
      message = reason ?? (typeof described === 'string' ? `must be ${described}` : `must be a valid ${String(p.format)}`);
      break;
    }
    case 'pattern':
      message = typeof described === 'string' ? `must be ${described}` : 'does not have the required form';
      break;
    default:
      message = error.message ?? 'is not valid';
  }
  return { code: 'invalid_params', path, message };
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : 'a fraction';
  return article(typeof value);
}
