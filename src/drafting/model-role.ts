// The model role: an OpenAI-compatible chat endpoint (any base URL and model name) asked for a
// plan. This is the I/O half; building the messages and reading the answer are pure
// (src/planning/strategies/model.ts). `complete` never throws: every way a call can go wrong
// comes back as an outcome with a message, for the caller to record.

import { maskCredentials } from '../capabilities/host/masking.ts';
import type OpenAI from 'openai';
import { performance } from 'node:perf_hooks';
import type { Problem } from '../core/errors.ts';
import type { LlmCallOutcome } from '../core/vocabulary.ts';
import type { ChatMessage } from '../planning/strategies/model.ts';

export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;
/** Longest reply text kept on the call record. */
export const MAX_RECORDED_RESPONSE_CHARS = 64 * 1024;

export interface ModelRoleConfig {
  /** The OpenAI-compatible API root, e.g. http://127.0.0.1:8080/v1. */
  baseURL: string;
  model: string;
  /** Sent as a bearer token; local servers usually ignore it. */
  apiKey?: string;
  timeoutMs?: number;
  maxTokens?: number;
  temperature?: number;
  /** Ask for `response_format: json_object`; off by default, since not every server accepts it. */
  jsonMode?: boolean;
}

export interface ModelReply {
  outcome: LlmCallOutcome;
  /** The reply text when the server answered; null otherwise. */
  content: string | null;
  /** Why the call failed, in words; empty when it answered. */
  message: string;
  statusCode: number | null;
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

/** Anything that can answer the plan role; tests and other back ends implement it too. */
export interface ModelRole {
  readonly model: string;
  /** Where calls go, without credentials. */
  readonly baseUrl: string;
  complete(messages: readonly ChatMessage[]): Promise<ModelReply>;
}

export interface ModelRoleOptions {
  /** Milliseconds on a monotonic clock, for latency; injectable for tests. */
  measure?: () => number;
}

/** The base URL without user information, query or fragment. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

// Loaded at the first call, not at start-up: a daemon without a model never needs the client.
let openAiSdk: Promise<typeof import('openai')> | null = null;

export class OpenAiModelRole implements ModelRole {
  readonly model: string;
  readonly baseUrl: string;
  #client: OpenAI | null = null;
  readonly #config: ModelRoleConfig;
  readonly #measure: () => number;

  constructor(config: ModelRoleConfig, options: ModelRoleOptions = {}) {
    this.model = config.model;
    this.baseUrl = displayUrl(config.baseURL);
    this.#config = config;
    this.#measure = options.measure ?? (() => performance.now());
  }

  async complete(messages: readonly ChatMessage[]): Promise<ModelReply> {
    const sdk = await (openAiSdk ??= import('openai'));
    const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk;
    this.#client ??= new sdk.default({
      baseURL: this.#config.baseURL,
      // Never fall back on OPENAI_API_KEY from the environment: the key is configuration.
      apiKey: this.#config.apiKey ?? 'unused',
      timeout: this.#config.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
      // A retry would hide a failure and double the wait; the caller decides about retrying.
      maxRetries: 0,
    });
    const started = this.#measure();
    const elapsed = () => Math.max(0, Math.round(this.#measure() - started));
    const failed = (outcome: LlmCallOutcome, message: string, statusCode: number | null = null): ModelReply => ({
      outcome,
      content: null,
      // A server may echo the key it was sent, whatever its shape: never let it through.
      message: maskCredentials(message, [this.#config.apiKey]),
      statusCode,
      finishReason: '',
      promptTokens: 0,
      completionTokens: 0,
      latencyMs: elapsed(),
    });
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.#client.chat.completions.create({
        model: this.#config.model,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        temperature: this.#config.temperature ?? 0,
        ...(this.#config.maxTokens !== undefined ? { max_tokens: this.#config.maxTokens } : {}),
        ...(this.#config.jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
      });
    } catch (error) {
      const timeoutMs = this.#config.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
      if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError) {
        return failed('timeout', `the model did not answer within ${timeoutMs} ms`);
      }
      if (error instanceof APIConnectionError) {
        return failed('unreachable', `the model server at ${this.baseUrl} could not be reached (${networkCause(error)})`);
      }
      if (error instanceof APIError && typeof error.status === 'number') {
        return failed('http_error', `the model server answered HTTP ${error.status}: ${oneLine(error.message)}`, error.status);
      }
      return failed('malformed', `the model server's reply could not be read: ${oneLine(error instanceof Error ? error.message : String(error))}`);
    }

    const usage = (completion as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
    const tokens = {
      promptTokens: typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : 0,
      completionTokens: typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : 0,
    };
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice || typeof choice !== 'object') {
      return { ...failed('malformed', "the model server's reply has no choices"), ...tokens };
    }
    const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : '';
    const message = choice.message as { content?: unknown; refusal?: unknown } | undefined;
    if (typeof message?.refusal === 'string' && message.refusal.trim() !== '') {
      return { ...failed('refused', `the model refused: ${oneLine(message.refusal)}`), finishReason, ...tokens };
    }
    if (finishReason === 'content_filter') {
      return { ...failed('refused', 'the model stopped on its content filter'), finishReason, ...tokens };
    }
    const content = typeof message?.content === 'string' ? message.content : '';
    if (content.trim() === '') {
      return { ...failed('malformed', 'the model returned no text'), finishReason, ...tokens };
    }
    return {
      outcome: 'answered',
      content,
      message: '',
      statusCode: null,
      finishReason,
      ...tokens,
      latencyMs: elapsed(),
    };
  }
}

/** The innermost error code (ECONNREFUSED, ENOTFOUND, ...) fetch wrapped, else the deepest message. */
function networkCause(error: unknown): string {
  let message = '';
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    const { code, message: text, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    if (typeof text === 'string' && text) message = text;
    current = cause;
  }
  return oneLine(message || 'no detail');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** The longest delay a Node timer keeps: longer ones fire after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

const MODEL_VARIABLES = ['PRAXIS_MODEL_BASE_URL', 'PRAXIS_MODEL', 'PRAXIS_MODEL_API_KEY', 'PRAXIS_MODEL_TIMEOUT_MS'] as const;

/**
 * What is wrong with the model variables, checked where a daemon or an MCP session starts. Each
 * mistake used to pass in silence: a base URL without a model (or the reverse) meant no model at
 * all, "not a url" failed every call as unreachable and was asked again at every replan sweep,
 * and a timeout of "30s" fell back to 60 s. Nothing set is no model, and no problem.
 */
export function modelRoleProblems(env: Record<string, string | undefined>): Problem[] {
  const set = MODEL_VARIABLES.filter((name) => env[name]?.trim());
  if (set.length === 0) return [];
  const problems: Problem[] = [];
  for (const name of ['PRAXIS_MODEL_BASE_URL', 'PRAXIS_MODEL'] as const) {
    if (!set.includes(name)) {
      const others = set.filter((other) => other !== name).join(', ');
      problems.push({
        code: 'invalid_model_config',
        path: name,
        message: `${name} is not set while ${others} ${set.length === 1 ? 'is' : 'are'}: a model needs both PRAXIS_MODEL_BASE_URL and PRAXIS_MODEL (unset them all for none)`,
      });
    }
  }
  const baseURL = env.PRAXIS_MODEL_BASE_URL?.trim();
  if (baseURL && !isHttpUrl(baseURL)) {
    problems.push({
      code: 'invalid_model_config',
      path: 'PRAXIS_MODEL_BASE_URL',
      message: `${JSON.stringify(baseURL)} is not the http(s) URL of an OpenAI-compatible server, such as http://127.0.0.1:8000/v1`,
    });
  }
  const timeout = env.PRAXIS_MODEL_TIMEOUT_MS?.trim();
  // A timer longer than 2^31 - 1 ms fires at once in Node: every call would time out.
  if (timeout && !(/^\d+$/.test(timeout) && Number(timeout) > 0 && Number(timeout) <= MAX_TIMER_MS)) {
    problems.push({ code: 'invalid_model_config', path: 'PRAXIS_MODEL_TIMEOUT_MS', message: `${JSON.stringify(timeout)} is not a whole number of milliseconds from 1 to ${MAX_TIMER_MS}` });
  }
  return problems;
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The model role from the environment: PRAXIS_MODEL_BASE_URL and PRAXIS_MODEL (both needed),
 * PRAXIS_MODEL_API_KEY, PRAXIS_MODEL_TIMEOUT_MS. Null when no model is configured.
 */
export function modelRoleConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ModelRoleConfig | null {
  const baseURL = env.PRAXIS_MODEL_BASE_URL?.trim();
  const model = env.PRAXIS_MODEL?.trim();
  if (!baseURL || !model) return null;
  const timeout = Number(env.PRAXIS_MODEL_TIMEOUT_MS);
  return {
    baseURL,
    model,
    ...(env.PRAXIS_MODEL_API_KEY ? { apiKey: env.PRAXIS_MODEL_API_KEY } : {}),
    ...(Number.isInteger(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
  };
}
