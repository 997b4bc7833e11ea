// How a host program's failure becomes a CapabilityError people can act on. The program's
// own words are kept (first line, masked, shortened), because "Unit foo.service not found"
// says more than any code.

import { CapabilityError } from '../implementation.ts';
import { checkUnitName, UNIT_TYPES, type UnitType } from '../unit-name.ts';
import { mask } from './masking.ts';
import type { CommandResult } from './runner.ts';

const MAX_DETAIL = 300;

/** The first non-empty line of a program's error output, masked and shortened. */
export function errorDetail(stderr: string): string {
  const first =
    stderr
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  const masked = mask(first);
  return masked.length > MAX_DETAIL ? `${masked.slice(0, MAX_DETAIL)}…` : masked;
}

/** The error for a run that exited non-zero (or was stopped at the output cap). */
export function commandFailure(what: string, result: CommandResult, readOnly: boolean): CapabilityError {
  const detail = errorDetail(result.stderr);
  const status = result.exitCode === null ? 'was stopped' : `exited with status ${result.exitCode}`;
  const message = `${what} ${status}${detail === '' ? '' : `: ${detail}`}`;
  // A masked unit is an operator's standing "never start this" (systemctl mask), not a fault of
  // the unit or of systemd: it gets its own code so a plan and its reader can tell "someone
  // forbade it" from "it broke". systemd 252 words it "Unit <name> is masked." (exit status 1).
  if (/\bUnit \S+ is masked\./.test(result.stderr)) {
    return new CapabilityError('unit_masked', message, readOnly);
  }
  if (/not found|not loaded|no such unit|does not exist/i.test(result.stderr)) {
    return new CapabilityError('unit_not_found', message, readOnly);
  }
  if (/access denied|interactive authentication required|permission denied|not authorized/i.test(result.stderr)) {
    return new CapabilityError('permission_denied', message, readOnly);
  }
  return new CapabilityError('command_failed', message, readOnly);
}

/** Defence in depth: implementations check the unit again even though the schema did. */
export function checkedUnit(value: unknown, types: readonly UnitType[] = UNIT_TYPES): string {
  const problem = checkUnitName(value, types);
  if (problem !== null) throw new CapabilityError('invalid_params', `unit: ${problem}`, false);
  return value as string;
}

export function invalidParams(message: string): never {
  throw new CapabilityError('invalid_params', message, false);
}
