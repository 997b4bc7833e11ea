// Loaded into each test file's process by scripts/run-tests.mjs (`--import`): when the process
// exits, it writes the CPU seconds it used to the file named by PRAXIS_TEST_CPU_OUT, its own and
// those of the processes it started and waited for (the built CLI it spawns, a browser, helper
// programs), as the kernel counts them. Wall time says little on a shared machine; CPU seconds
// are what a file costs whatever else runs beside it.
import { readFileSync, writeFileSync } from 'node:fs';

const out = process.env.PRAXIS_TEST_CPU_OUT;
// Processes the file starts do not inherit the variable, so none of them writes over the figure.
delete process.env.PRAXIS_TEST_CPU_OUT;

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux that node runs on). */
const TICK = 100;

/** The waited-for children's user and system seconds (cutime, cstime) from /proc/self/stat. */
function children() {
  try {
    // The fields after the command's closing parenthesis, which may itself hold spaces.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5), counted from 1 at the pid; this list starts at field 3.
    return { user: Number(fields[13]) / TICK, system: Number(fields[14]) / TICK };
  } catch {
    return { user: 0, system: 0 };
  }
}

if (out) {
  process.on('exit', () => {
    const self = process.resourceUsage();
    const kids = children();
    const cpu = { self: (self.userCPUTime + self.systemCPUTime) / 1e6, children: kids.user + kids.system };
    try {
      writeFileSync(out, JSON.stringify(cpu));
    } catch {
      // The runner then reports the file without a CPU figure.
    }
  });
}
