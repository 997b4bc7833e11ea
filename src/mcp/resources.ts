// Resources a client can read by URI: a plan with its steps, and what worked for a mind (its
// procedural memories). Both are ownership-checked like the tools; a refusal is a protocol error
// naming the resource, since resource reads have no error result of their own.

import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { InputError } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { inputProblems } from '../core/input-limits.ts';
import { planDetail } from '../operations/plans.ts';
import { proceduralMemories } from '../operations/timeline.ts';
import type { ToolContext } from './deps.ts';
import { describeProblems, problemsOf, refusal, type FieldNames } from './refusal.ts';

const MEMORY_LIMIT = 100;

export function registerResources(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'plan',
    new ResourceTemplate('praxis://plans/{plan_id}', { list: undefined }),
    { title: 'Plan', description: 'A plan of the mind with its steps, as show_plan returns it', mimeType: 'application/json' },
    (uri, variables) =>
      readable(
        uri,
        async () => {
          ctx.caller.require('read', 'reading a plan');
          const id = single(variables, 'plan_id');
          // Anything but an id names no plan; the store is asked only about ids.
          if (!isId(id)) throw refusal('unknown_plan', 'plan_id', 'no plan with this id is visible to this token');
          return planDetail(ctx.store, ctx.registry, ctx.caller.principal, id);
        },
        { id: 'plan_id' },
      ),
  );

  server.registerResource(
    'procedural-memories',
    new ResourceTemplate('praxis://minds/{mind}/procedural-memories', { list: undefined }),
    {
      title: 'Procedural memories',
      description: 'What worked for the mind: completed plans summarised, newest first, with whether observation confirmed them',
      mimeType: 'application/json',
    },
    (uri, variables) =>
      readable(uri, async () => {
        ctx.caller.require('read', 'reading procedural memories');
        const name = decoded(single(variables, 'mind'));
        const problems = inputProblems(name, 'mind');
        if (problems.length > 0) throw new InputError(problems);
        const mind = await ctx.caller.mind(name);
        const memories = await proceduralMemories(ctx.store, ctx.caller.principal, mind.id, { limit: MEMORY_LIMIT });
        return { mind: { id: mind.id, name: mind.name }, memories: memories.items };
      }),
  );
}

function single(variables: Variables, name: string): string {
  const value = variables[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** Mind names in a URI may be percent-encoded; a malformed escape is taken literally (and then not found). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function readable(uri: URL, read: () => Promise<object>, fields: FieldNames = {}): Promise<ReadResourceResult> {
  try {
    const value = await read();
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
  } catch (error) {
    const problems = problemsOf(error, fields);
    if (problems) throw new McpError(ErrorCode.InvalidParams, `${uri.href}: ${describeProblems(problems)}`, { problems });
    throw error;
  }
}
