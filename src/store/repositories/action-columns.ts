// Executions and approval requests both record one action and who caused it, in the same
// columns; this decodes them the same way for both.

import type { JsonObject } from '../../core/plan.ts';
import type { Codec } from '../codec.ts';

export interface ActionColumns {
  id: string;
  mind_id: string;
  capability: string;
  target: string;
  params: unknown;
  origin: string;
  correlation_id: string;
  evidence: unknown;
}

export interface DecodedAction {
  id: string;
  mindId: string;
  capability: string;
  target: string;
  params: JsonObject;
  origin: string;
  correlationId: string;
  evidence: JsonObject;
}

export function decodeAction(row: ActionColumns, codec: Codec): DecodedAction {
  return {
    id: row.id,
    mindId: row.mind_id,
    capability: row.capability,
    target: row.target,
    params: codec.readJson<JsonObject>(row.params),
    origin: row.origin,
    correlationId: row.correlation_id,
    evidence: codec.readJson<JsonObject>(row.evidence),
  };
}
