// Schema fragments shared by the built-in capabilities. Every string is bounded in length and
// form, and every object refuses properties it does not name. The bounds an implementation
// enforces again are here too, so that its code (loaded only when invoked) can share them
// without importing the capability's module, which imports it.

import type { JsonObject } from '../../core/plan.ts';
import { MAX_HOST_PATH_LENGTH, MAX_URL_LENGTH, hostOfUrl } from '../formats.ts';
import { JOURNAL_UNIT_TYPES, MAX_UNIT_NAME_LENGTH, RESTARTABLE_UNIT_TYPES, type UnitType } from '../unit-name.ts';

export const MAX_LINKS = 500;
export const MAX_PROCESS_LIMIT = 100;
export const JOURNAL_PRIORITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;
export const MAX_LOG_LINES = 1000;
export const MAX_GREP_LENGTH = 128;

export const unitParam: JsonObject = {
  type: 'string',
  description: 'a systemd unit name with its type, e.g. nginx.service',
  minLength: 1,
  maxLength: MAX_UNIT_NAME_LENGTH,
  format: 'systemd-unit',
};

const typeList = (types: readonly UnitType[]) => types.map((t) => `.${t}`).join(', ');

/** A unit `service.restart` may restart (RESTARTABLE_UNIT_TYPES). */
export const restartableUnitParam: JsonObject = {
  ...unitParam,
  description: `a systemd unit name ending in ${typeList(RESTARTABLE_UNIT_TYPES)}, e.g. nginx.service`,
  format: 'systemd-restartable-unit',
};

/** A unit whose journal `logs.query` reads (JOURNAL_UNIT_TYPES: not a slice). */
export const journalUnitParam: JsonObject = {
  ...unitParam,
  description: `a systemd unit name ending in ${typeList(JOURNAL_UNIT_TYPES)} (not a slice, which stands for every unit in it), e.g. nginx.service`,
  format: 'systemd-journal-unit',
};

export const urlParam: JsonObject = {
  type: 'string',
  description: 'an http or https URL without user information',
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  format: 'http-url',
};

export const hostPathParam: JsonObject = {
  type: 'string',
  description: 'an absolute path without ".." segments',
  minLength: 1,
  maxLength: MAX_HOST_PATH_LENGTH,
  format: 'host-path',
};

const DATE = '\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])';
const CLOCK = '(?:[01]\\d|2[0-3]):[0-5]\\d';
const SECONDS = ':[0-5]\\d';
const ISO_TIMESTAMP = `${DATE}T${CLOCK}(?:${SECONDS}(?:\\.\\d{1,6})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)?`;
const PLAIN_TIMESTAMP = `${DATE}(?: ${CLOCK}(?:${SECONDS})?)?`;
const RELATIVE = '-[1-9]\\d{0,3}(?:s|min|h|d)';

/** A journal time bound: an ISO-8601 timestamp, `YYYY-MM-DD[ HH:MM[:SS]]`, or `-<n><s|min|h|d>`. */
export const journalTimeParam: JsonObject = {
  type: 'string',
  description: 'an ISO-8601 timestamp, "YYYY-MM-DD[ HH:MM[:SS]]" or a relative time such as -15min, -2h, -1d',
  minLength: 1,
  maxLength: 35,
  pattern: `^(?:${ISO_TIMESTAMP}|${PLAIN_TIMESTAMP}|${RELATIVE})$`,
};

export function objectSchema(properties: JsonObject, required: string[] = []): JsonObject {
  const schema: JsonObject = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) schema.required = required;
  return schema;
}

/** The target of unit-based capabilities; called only with schema-valid parameters. */
export function unitTarget(params: JsonObject): string {
  return String(params.unit);
}

/** The target of browser capabilities: the URL's host, lower-cased. */
export function urlTarget(params: JsonObject): string {
  return hostOfUrl(String(params.url));
}
