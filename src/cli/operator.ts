// Who a CLI command speaks for. The CLI works on the store directly, so whoever runs it is
// trusted to name themselves: `--as <name>` when given, else the operating system's user name.
// Either way a name is recorded, never an empty author: an action nobody authored could be
// approved by anyone (four eyes, src/core/operator.ts).

import { userInfo } from 'node:os';
import { InputError } from '../core/errors.ts';
import { isOperatorName } from '../core/operator.ts';

export function cliOperator(as: string | undefined, option = '--as'): string {
  if (as !== undefined) {
    if (!isOperatorName(as)) throw new InputError([{ code: 'invalid_operator', path: option, message: 'the operator needs a name (letters, no control characters)' }]);
    return as.trim();
  }
  let name = '';
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER ?? process.env.LOGNAME ?? '';
  }
  if (!isOperatorName(name)) {
    throw new InputError([{ code: 'missing_operator', path: option, message: `name the operator with ${option}: the operating system names no user to record` }]);
  }
  return name.trim();
}
