// A local stand-in for an OpenAI-compatible server: POST /v1/chat/completions on 127.0.0.1,
// answering from a script of behaviours, and remembering what it was asked.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { kind: 'answer'; content: string; finishReason?: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { kind: 'refusal'; refusal: string }
  | { kind: 'status'; status: number; body: unknown }
  /** Accept the request and never answer. */
  | { kind: 'hang' };

export interface FakeModel {
  /** The API root to configure, e.g. http://127.0.0.1:41234/v1. */
  baseURL: string;
  requests: { path: string; authorization: string | undefined; body: { model: string; messages: { role: string; content: string }[] } }[];
  next(behaviour: Behaviour): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function completion(message: { content: string | null; refusal: string | null }, finishReason: string, usage = { prompt_tokens: 321, completion_tokens: 45 }) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_767_225_600,
    model: 'fake-planner',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason, logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export async function startFakeModel(): Promise<FakeModel> {
  const script: Behaviour[] = [];
  const requests: FakeModel['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    const text = await readBody(req);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } });
      return;
    }
    requests.push({ path: req.url, authorization: req.headers.authorization, body: JSON.parse(text) });
    const behaviour = script.shift() ?? { kind: 'status', status: 500, body: { error: { message: 'no behaviour scripted' } } };
    switch (behaviour.kind) {
      case 'answer':
        send(res, 200, completion({ content: behaviour.content, refusal: null }, behaviour.finishReason ?? 'stop', behaviour.usage));
        return;
      case 'refusal':
        send(res, 200, completion({ content: null, refusal: behaviour.refusal }, 'stop'));
        return;
      case 'status':
        send(res, behaviour.status, behaviour.body);
        return;
      case 'hang':
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    next: (behaviour) => script.push(behaviour),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A base URL on 127.0.0.1 where nothing listens: the port was just freed. */
export async function closedPortURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** An objective no deterministic strategy serves, and the good plan a fake model answers it with (a read of /var's disk, summarised). */
export const OBJECTIVE = 'make sure /var has room for the nightly export';

export const goodPlan = {
  objective: OBJECTIVE,
  completion_criteria: 'the file system holding /var has been read',
  risk: 'read-only',
  steps: [
    { key: 'D1', title: 'Read disk usage of /var', kind: 'capability', capability: 'host.disk.usage', params: { path: '/var' } },
    { key: 'S1', title: 'Summarise', kind: 'internal', depends_on: ['D1'], spec: { action: 'summarise_findings' } },
  ],
};
