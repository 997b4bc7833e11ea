// The demo's fixed names, apart from the story so that the command line can describe
// `praxis demo` without loading it.

export const DEMO_MIND = 'demo';
export const DEMO_UNIT = 'atlas-worker.service';
export const DEMO_DB_PATH = '.praxis/demo.db';
/** The operator recorded on what `--auto` decides. */
export const AUTO_OPERATOR = 'demo-auto';
