// The masking every surface shows read text through (logs.query's rules: e-mail and IP
// addresses, credentials, private keys), as an operation so a surface that masks text of its
// own (`praxis mask`) applies exactly the rules the API's answers were masked with.

import { LineMasker } from '../capabilities/host/masking.ts';

export interface TextMasker {
  /** Feeds one line, with its line break if it has one; answers the text to emit now. */
  push(line: string): string;
  /** Answers what is still held (an unfinished private-key block), masked whole. */
  end(): string;
}

/** A masker for one stream of lines: a private-key block spanning lines is masked whole. */
export function textMasker(): TextMasker {
  return new LineMasker();
}
