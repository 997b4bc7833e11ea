// Plan text (JSON or YAML), read the same way by every surface that takes a plan as text: the
// API's application/yaml bodies and the CLI's plan files. Its own module, so a command that
// only reads a file (praxis validate) loads nothing else of the operations.

export { formatOfFileName, parsePlanText, MAX_PLAN_TEXT_BYTES } from '../planning/plan-text.ts';
