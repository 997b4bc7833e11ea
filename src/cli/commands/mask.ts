import type { Command } from 'commander';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { textMasker } from '../../operations/masking.ts';

function write(output: Writable, text: string): Promise<void> | undefined {
  if (text === '' || output.write(text)) return undefined;
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      output.off('error', onError);
      resolve();
    };
    const onError = (error: Error) => {
      output.off('drain', onDrain);
      reject(error);
    };
    output.once('drain', onDrain);
    output.once('error', onError);
  });
}

/**
 * Copies `input` to `output` with identifiers and credentials masked, line by line, using the
 * same rules as logs.query. Private-key blocks spanning lines are masked whole.
 */
export async function runMask(input: Readable, output: Writable): Promise<void> {
  const masker = textMasker();
  const decoder = new StringDecoder('utf8');
  let partial = '';
  const emitLines = async (text: string) => {
    partial += text;
    let start = 0;
    for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n', start)) {
      await write(output, masker.push(partial.slice(start, nl + 1)));
      start = nl + 1;
    }
    partial = partial.slice(start);
  };
  for await (const chunk of input) {
    await emitLines(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
  }
  await emitLines(decoder.end());
  // A last line without a line break is masked like any other.
  if (partial !== '') await write(output, masker.push(partial));
  await write(output, masker.end());
}

export function maskCommand(program: Command): void {
  program
    .command('mask')
    .description('mask e-mail and IP addresses, credentials and private keys in standard input, writing the result to standard output')
    .action(async () => {
      await runMask(process.stdin, process.stdout);
    });
}
