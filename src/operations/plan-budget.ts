// The caps the executor enforces on a plan, defaults included (a plan that stated no budget is
// held to 20 invocations), as every surface shows them. Its own module so a command that shows
// a plan loads nothing else of the operations.

export { budgetLimits } from '../planning/resources.ts';
