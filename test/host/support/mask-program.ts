// A Commander program with only the mask command, so the spawned-process test does not depend
// on the command being registered in src/cli/main.ts.
import { Command } from 'commander';
import { maskCommand } from '../../../src/cli/commands/mask.ts';

const program = new Command('praxis');
maskCommand(program);
await program.parseAsync(process.argv);
