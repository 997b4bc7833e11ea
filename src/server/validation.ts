// Schema checking at the boundary. Fastify's default Ajv coerces every part and would silently
// turn `"true"` into true in a JSON body; here bodies are checked exactly as sent (unknown
// fields refused, nothing coerced or removed), and only query strings and path parameters,
// which arrive as text, have numbers and booleans coerced.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { joinPath, type Problem } from '../core/errors.ts';
import type { ErrorCode } from '../core/error-codes.ts';
import { ID_DESCRIPTION } from './schemas.ts';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule.default }).default;

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: false, coerceTypes, strict: false, verbose: true });
  // verbose: errors carry their schema, whose description says what an id is.
  addFormats(ajv);
  return ajv;
}

const exact = makeAjv(false);
const textual = makeAjv(true);

/**
 * Each route's schema is compiled when the route is first called, not when the server starts:
 * compiling every route's schema took a tenth of the daemon's start-up. Fastify calls the
 * returned function with Ajv's arguments and reads `errors` (and `schemaEnv`) from it.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'querystring' || httpPart === 'params' ? textual : exact;
  let compiled: ValidateFunction | null = null;
  const compile = () => (compiled ??= ajv.compile(schema as object));
  const check = (data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const validate = compile();
    const ok = context ? validate(data, context) : validate(data);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  Object.defineProperty(check, 'schemaEnv', { get: () => compile().schemaEnv });
  return check;
};

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' };

/** `/means/params/0` → `means.params[0]` */
function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

/** The code of each other schema keyword a value can fail (`minLength` is `invalid_min_length`). */
const KEYWORD_CODES: Readonly<Record<string, ErrorCode>> = {
  minimum: 'invalid_minimum',
  maximum: 'invalid_maximum',
  exclusiveMinimum: 'invalid_exclusive_minimum',
  exclusiveMaximum: 'invalid_exclusive_maximum',
  minLength: 'invalid_min_length',
  maxLength: 'invalid_max_length',
  minItems: 'invalid_min_items',
  maxItems: 'invalid_max_items',
  minProperties: 'invalid_min_properties',
  maxProperties: 'invalid_max_properties',
  const: 'invalid_const',
  uniqueItems: 'invalid_unique_items',
  multipleOf: 'invalid_multiple_of',
  anyOf: 'invalid_any_of',
  oneOf: 'invalid_one_of',
};

/** Ajv's errors as typed problems whose paths name the field, e.g. `body.decision`. */
export function problemsOf(errors: readonly ErrorObject[], context: string): Problem[] {
  const part = PART_NAMES[context] ?? context;
  const problems: Problem[] = [];
  for (const error of errors) {
    const at = pointerToPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'additionalProperties':
        problems.push({
          code: 'unknown_field',
          path: joinPath(part, at ? `${at}.${String(params.additionalProperty)}` : String(params.additionalProperty)),
          message: 'this field is not accepted here',
        });
        break;
      case 'required':
        problems.push({ code: 'missing_field', path: joinPath(part, at ? `${at}.${String(params.missingProperty)}` : String(params.missingProperty)), message: 'this field is required' });
        break;
      case 'enum':
        problems.push({ code: 'invalid_value', path: joinPath(part, at), message: `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}` });
        break;
      case 'type':
        problems.push({ code: 'invalid_type', path: joinPath(part, at), message: `must be ${String(params.type)}` });
        break;
      case 'pattern':
      case 'format':
        problems.push({
          code: 'invalid_format',
          path: joinPath(part, at),
          message: (error.parentSchema as { description?: string } | undefined)?.description === ID_DESCRIPTION ? `must be an id (${ID_DESCRIPTION})` : (error.message ?? 'has the wrong form'),
        });
        break;
      default:
        problems.push({ code: KEYWORD_CODES[error.keyword] ?? 'invalid_value', path: joinPath(part, at), message: error.message ?? 'is not acceptable' });
    }
  }
  // anyOf/oneOf repeat what their branches already said; keep each field's first word.
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path} ${p.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
