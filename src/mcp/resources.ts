// Resources a client can read by URI: a plan with its steps, and what worked for a mind (its
// procedural memories). Both are ownership-checked like the tools; a refusal is a protocol error
// naming the resource, since resource reads have no error result of their own.

import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from './deps.ts';
import { asJson, McpRefusal } from './refusal.ts';
import { planView } from './views.ts';

const MEMORY_LIMIT = 100;

export function registerResources(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'plan',
    new ResourceTemplate('praxis://plans/{plan_id}', { list: undefined }),
    { title: 'Plan', description: 'A plan of the mind with its steps, as show_plan returns it', mimeType: 'application/json' },
    (uri, variables) =>
      readable(uri, async () => {
        ctx.caller.require('read', 'reading a plan');
        return planView(await ctx.caller.plan(single(variables, 'plan_id')));
      }),
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
        const mind = await ctx.caller.mind(decoded(single(variables, 'mind')));
        const memories = await ctx.store.proceduralMemories.listByMind(mind.id, { limit: MEMORY_LIMIT });
        return { mind: { id: mind.id, name: mind.name }, memories: memories.map(asJson) };
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

async function readable(uri: URL, read: () => Promise<Record<string, unknown>>): Promise<ReadResourceResult> {
  try {
    const value = await read();
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
  } catch (error) {
    if (error instanceof McpRefusal) throw new McpError(ErrorCode.InvalidParams, `${uri.href}: ${error.message}`, { problems: error.problems });
    throw error;
  }
}
