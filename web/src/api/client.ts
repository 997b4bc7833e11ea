// A thin client for /api/v1: every request carries the bearer token, and every failure becomes
// an ApiError with the API's own code, message and problems, so pages can show exactly what the
// server said (a 403 for a viewer who tries to approve, a 409 for a decision already taken).

export const API_BASE = '/api/v1';

export interface Problem {
  code: string;
  message: string;
  path: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problems: Problem[];
  constructor(status: number, code: string, message: string, problems: Problem[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.problems = problems;
  }
}

/** Called when the server refuses the token, so the app can return to the sign-in box. */
type UnauthorisedListener = (error: ApiError) => void;

export class ApiClient {
  readonly token: string;
  #onUnauthorised: UnauthorisedListener | undefined;

  constructor(token: string, onUnauthorised?: UnauthorisedListener) {
    this.token = token;
    this.#onUnauthorised = onUnauthorised;
  }

  get<T>(path: string, query?: Record<string, string | number | undefined | null>): Promise<T> {
    return this.#request<T>('GET', path + queryString(query));
  }

  /** A state-changing request: always a JSON body (`{}` when there are no fields), declared as such. */
  post<T>(path: string, body: object = {}): Promise<T> {
    return this.#request<T>('POST', path, body);
  }

  async #request<T>(method: string, path: string, body?: object): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: 'application/json' };
    // The API refuses a POST, PUT or DELETE that is not declared JSON (415): that is what keeps
    // other web pages from sending one. So anything but a read carries a JSON body.
    const json = method === 'GET' ? undefined : JSON.stringify(body ?? {});
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(API_BASE + path, { method, headers, body: json });
    } catch (cause) {
      throw new ApiError(0, 'network_error', `The server could not be reached (${String(cause)})`);
    }
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) {
      const error = toApiError(response.status, response.statusText, parsed);
      if (response.status === 401) this.#onUnauthorised?.(error);
      throw error;
    }
    return parsed as T;
  }
}

export function queryString(query?: Record<string, string | number | undefined | null>): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toApiError(status: number, statusText: string, body: unknown): ApiError {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (error && typeof error === 'object') {
      const { code, message, problems } = error as { code?: unknown; message?: unknown; problems?: unknown };
      return new ApiError(status, typeof code === 'string' ? code : `http_${status}`, typeof message === 'string' ? message : statusText, Array.isArray(problems) ? (problems as Problem[]) : []);
    }
  }
  const message = typeof body === 'string' && body.length > 0 && body.length < 300 ? body : statusText || 'request failed';
  return new ApiError(status, `http_${status}`, message);
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, 'console_error', error instanceof Error ? error.message : String(error));
}
