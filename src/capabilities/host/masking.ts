// Masking of log text before anyone (operator, model, stored observation) sees it. It hides
// personal identifiers (e-mail, IPv4 and IPv6 addresses) and anything that looks like a
// credential, replacing each with a bracketed marker. Two promises hold and are tested:
// masking twice gives the same text as masking once, and ordinary log text (timestamps,
// versions, durations, ids, paths, harmless key=value pairs) passes through untouched.
//
// Every rule except private-key blocks works within one line, so masking a text line by line
// gives the same result as masking it whole; LineMasker relies on that to stream.

import { isIPv6 } from 'node:net';
import { UNIT_TYPES } from '../unit-name.ts';

export const MARKERS = {
  email: '[email]',
  ipv4: '[ipv4]',
  ipv6: '[ipv6]',
  secret: '[secret]',
  privateKey: '[private-key]',
} as const;

const MARKER = String.raw`\[(?:email|ipv4|ipv6|secret|private-key)\]`;

// ---------------------------------------------------------------------------------------
// Private key blocks. The only rule that spans lines. A block with no end line hides the rest
// of the text: a truncated key is still a key.

const PEM_BEGIN_SOURCE = String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`;
const PEM_END_SOURCE = String.raw`-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`;
const PEM_BLOCK = new RegExp(`${PEM_BEGIN_SOURCE}(?:[\\s\\S]*?${PEM_END_SOURCE}|[\\s\\S]*$)`, 'g');
const PEM_BEGIN = new RegExp(PEM_BEGIN_SOURCE);

// ---------------------------------------------------------------------------------------
// Credentials named by their key: `password=…`, `db_password: …`, `"apiKey": "…"`,
// `Authorization: Bearer …`. The key's last part must be one of these words; a key that only
// contains one (`token_count`, `max_tokens`, `author`) is left alone.

const SECRET_WORDS = [
  'password',
  'passwd',
  'pwd',
  'pass',
  'passphrase',
  'secret',
  'token',
  'auth',
  'authorization',
  'credentials?',
  'api[_-]?key',
  'access[_-]?key',
  'secret[_-]?key',
  'private[_-]?key',
];
// Short words that too often end ordinary words (`oauth`, `oldpwd`): glued to a prefix they
// count only at a camel-case boundary (`xAuth`, `dbPwd`).
const SHORT_WORDS = new Set(['auth', 'pwd', 'pass']);
const KEY_NAME = String.raw`(?:[A-Za-z0-9]+[_.-]+)*(?<attached>[A-Za-z0-9]*?)(?<word>${SECRET_WORDS.join('|')})`;
const AUTH_SCHEMES = String.raw`(?:Bearer|Basic|Digest|Token|Negotiate|NTLM|Bot|ApiKey)`;
const VALUE = [
  `(?<marker>${MARKER})`,
  String.raw`(?<scheme>${AUTH_SCHEMES})(?<gap>[ \t]+)(?:${MARKER}|[^\s"',;]+)`,
  String.raw`(?<dq>"(?:[^"\\\n]|\\.)*")`,
  String.raw`(?<sq>'(?:[^'\\\n]|\\.)*')`,
  String.raw`(?<edq>\\"(?:(?!\\")[^\n])*\\")`,
  String.raw`(?<open>["'])[^\s"',;&]*`,
  String.raw`[^\s"',;&]+`,
].join('|');
// Blanks around the separator include the no-break space, which some programs print there.
const KEYED_SOURCE = String.raw`(?<![\w.-])(?<key>[_.-]*(?:\\?["'])?(?<name>${KEY_NAME})(?:\\?["'])?[ \t\u00a0]*(?:=|:(?!:))[ \t\u00a0]*)(?<value>${VALUE})`;
const BARE_JSON_WORDS = new Set(['null', 'true', 'false']);

interface KeyedGroups {
  key: string;
  name: string;
  attached: string;
  word: string;
  value: string;
  marker?: string;
  scheme?: string;
  gap?: string;
  dq?: string;
  sq?: string;
  edq?: string;
  open?: string;
}

// Global regexes are safe to share, even in the nested call below: replace() collects every
// match before it calls the replacer.
const KEYED_SECRET = new RegExp(KEYED_SOURCE, 'gi');

function maskKeyedSecrets(text: string): string {
  return text.replace(KEYED_SECRET, (match: string, ...args: unknown[]) => {
    const g = args[args.length - 1] as KeyedGroups;
    if (g.marker !== undefined) return match;
    const gluedWithoutBoundary = g.attached !== '' && SHORT_WORDS.has(g.word.toLowerCase()) && !(/[a-z0-9]$/.test(g.attached) && /^[A-Z]/.test(g.word));
    // PWD and OLDPWD are the shell's working directories, not passwords.
    const workingDirectory = /^(?:old)?pwd$/i.test(g.name) && g.value.startsWith('/');
    // `pass` is also a count (`tests: pass=120 fail=0`): a number after it is one.
    const passCount = g.word.toLowerCase() === 'pass' && /^\d+$/.test(g.value);
    if (gluedWithoutBoundary || workingDirectory || passCount || BARE_JSON_WORDS.has(g.value)) {
      // Not a credential key after all; the value may still hold one (`OAuth: token=…`).
      return g.key + maskKeyedSecrets(g.value);
    }
    if (g.scheme !== undefined) return `${g.key}${g.scheme}${g.gap}${MARKERS.secret}`;
    if (g.dq !== undefined) return `${g.key}"${MARKERS.secret}"`;
    if (g.sq !== undefined) return `${g.key}'${MARKERS.secret}'`;
    if (g.edq !== undefined) return `${g.key}\\"${MARKERS.secret}\\"`;
    if (g.open !== undefined) return `${g.key}${g.open}${MARKERS.secret}`;
    return `${g.key}${MARKERS.secret}`;
  });
}

// A secret given as a command's option, its value after a blank: `mysql --password hunter2`,
// `vault login --token s.abc`. (`--password=…` is a keyed value, above.)
const OPTION_SECRET =
  /(?<![\w-])(?<option>--(?:password|passwd|pass|passphrase|token|secret|api-key|apikey|access-key|secret-key|private-key))(?<gap>[ \t]+)(?!-)(?:\[secret\]|[^\s"']+|"[^"\n]*"|'[^'\n]*')/gi;

// A cookie header carries sessions: everything after `Cookie:` or `Set-Cookie:` on its line, when
// the header starts the line (after blanks, or curl's `<`/`>`): `failed to parse cookie: …` is prose.
const COOKIE_HEADER = /(?<=(?:^|\n)[ \t]*(?:[<>][ \t]*)?)(?<header>(?:set-)?cookie:[ \t]*)(?![ \t])(?!\[secret\][ \t]*(?:\n|$))[^\n]+/gi;

// `https://user:password@host`: the user-info (up to the authority's last "@") goes when it
// holds a password; a user name alone is left to the e-mail rule.
const URL_USERINFO = /(?<![A-Za-z0-9+.-])(?<scheme>[A-Za-z][A-Za-z0-9+.-]*:\/\/)(?<userinfo>[^\s/?#]*)@/g;

function maskUserinfo(match: string, scheme: string, userinfo: string): string {
  return userinfo.includes(':') ? `${scheme}${MARKERS.secret}@` : match;
}

// A bearer token outside any header, e.g. "sent Bearer abcd1234efgh5678". Long enough and
// with a digit, so prose such as "Bearer authentication" is left alone.
const BARE_BEARER = /(?<![\w-])(?<scheme>[Bb]earer)(?<gap>[ \t]+)(?<token>(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}=*)(?![\w~+/=.-])/g;

// Credentials recognisable by shape alone, as well-kept secret scanners know them. Each shape
// has a fixed prefix and a random body; the bodies must look random (a digit, or mixed case,
// long enough) so that names which merely start the same way (`sk-learn`, `praxis_demo.db`,
// `task-runner`) are left alone. docs/security.md lists them; test/host/masking-shapes.test.ts
// holds a corpus per shape and the look-alikes.
const SHAPED_SECRETS: readonly RegExp[] = [
  // JSON Web Tokens: base64url header and payload, both JSON objects, and a signature.
  /(?<![\w-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?![\w-])/g,
  // AWS access key ids (long-term AKIA, temporary ASIA, and the other id prefixes).
  /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  // GitHub tokens: personal (ghp_), OAuth (gho_), user-to-server (ghu_), server (ghs_), refresh
  // (ghr_), and fine-grained personal access tokens.
  /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_])/g,
  // GitLab tokens: personal, deploy, runner, pipeline trigger, OAuth application secrets, …
  /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|soat|cbt|imt|ffct|oas|agent)-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g,
  // Slack tokens (bot, user, app-level, refresh, …) and incoming-webhook URLs.
  /(?<![A-Za-z0-9_-])(?:xox[abeoprs]|xapp)-[A-Za-z0-9-]{10,}(?![A-Za-z0-9_-])/g,
  /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,}/g,
  // Google API keys.
  /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
  // Model provider keys: OpenAI (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…), Anthropic
  // (sk-ant-api03-…, sk-ant-admin01-…), OpenRouter (sk-or-v1-…) and the many servers that copy
  // the sk- form. The body is at least 20 characters and holds a digit.
  /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|ant-[a-z]+\d*|ant|or-v\d+)-)?(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g,
  // Stripe secret and restricted keys.
  /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}(?![A-Za-z0-9_])/g,
  // npm and Hugging Face access tokens.
  /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g,
  /(?<![A-Za-z0-9_])hf_(?=[a-z]*[A-Z])(?=[A-Za-z]*[a-z])[A-Za-z0-9]{30,}(?![A-Za-z0-9_])/g,
  // Praxis's own bearer tokens: praxis_ and 43 base64url characters (src/access/tokens.ts).
  /(?<![A-Za-z0-9_])praxis_(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g,
];

// An AWS secret access key is 40 base64 characters with nothing to tell it by, so it is masked
// only on a line that also names an AWS access key id or says "aws" (a credentials CSV, `aws
// configure list`), and only when it mixes upper case, lower case and digits or holds a / or +
// (a 40-digit hex commit id on the same line stays). The context is read before the key id is
// masked in the same round.
const AWS_CONTEXT = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])|(?<![A-Za-z])aws/i;
const AWS_SECRET_CANDIDATE = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function maskAwsSecrets(line: string): string {
  return line.replace(AWS_SECRET_CANDIDATE, (candidate) => {
    const mixed = /[A-Z]/.test(candidate) && /[a-z]/.test(candidate) && /\d/.test(candidate);
    return mixed || /[/+]/.test(candidate) ? MARKERS.secret : candidate;
  });
}

// Key material without its header: the lines of a private key (or any long base64 secret) whose
// `BEGIN … PRIVATE KEY` line is not in the text, as when a journal window, a grep or a line limit
// cuts into a key that a service wrote to stderr line by line (journald keeps each line as an
// entry of its own). A whole token of 40 or more base64 characters that mixes upper case, lower
// case and digits, as every line of a key does; hex ids, hashes and words do not. Left alone: a
// run with fewer than one upper-case letter in five (a random base64 run has two in five, and
// falls that low about once in a thousand at 40 characters; camel-case paths and names are
// mostly lower case), an absolute path spelled only with letters, digits and three or more
// slashes, and a key fingerprint after `SHA256:` (sshd's login lines: public, and meant to be
// compared). What this cannot see: a key's last line when it is shorter than 40 characters.
const KEY_MATERIAL = /(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/]{40,}={0,2}(?![A-Za-z0-9+/=_.-])/g;

const FINGERPRINT_PREFIX = /(?:SHA256|SHA384|SHA512|SHA1|MD5):$/i;

function maskKeyMaterial(line: string): string {
  return line.replace(KEY_MATERIAL, (run: string, offset: number) => {
    const mixed = /[A-Z]/.test(run) && /[a-z]/.test(run) && /\d/.test(run);
    const upper = (run.match(/[A-Z]/g)?.length ?? 0) / run.length;
    const path = run.startsWith('/') && (run.match(/\//g)?.length ?? 0) >= 3;
    const fingerprint = FINGERPRINT_PREFIX.test(line.slice(Math.max(0, offset - 7), offset));
    return mixed && upper >= 0.2 && !path && !fingerprint ? MARKERS.secret : run;
  });
}

/** The shaped credentials, line by line (the AWS context is a line's). */
function maskShapes(text: string): string {
  return text.replace(/[^\n]+/g, (line) => {
    const awsContext = AWS_CONTEXT.test(line);
    let out = line;
    for (const shape of SHAPED_SECRETS) out = out.replace(shape, MARKERS.secret);
    out = maskKeyMaterial(out);
    return awsContext ? maskAwsSecrets(out) : out;
  });
}

/**
 * Masks only the credentials known by their shape, line by line (no addresses, no keyed values,
 * no private-key blocks, which span lines): for text whose structure must survive, such as a
 * JSON log line.
 */
export function maskCredentialShapes(text: string): string {
  return maskShapes(text);
}

// ---------------------------------------------------------------------------------------
// Personal identifiers.

// Names that look like addresses but are systemd units (getty@tty1.service) or retina image
// files (icon@2x.png) are not e-mail addresses.
const NOT_MAIL_DOMAINS = new Set<string>([...UNIT_TYPES, 'png', 'jpg', 'jpeg', 'gif', 'svg', 'webp']);
const EMAIL = /(?<![\w.%+\]-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?<tld>[A-Za-z]{2,63})(?![\w-]|\.[A-Za-z0-9])/g;

function maskEmail(match: string, ...args: unknown[]): string {
  const groups = args[args.length - 1] as { tld: string };
  return NOT_MAIL_DOMAINS.has(groups.tld.toLowerCase()) ? match : MARKERS.email;
}

// A run of hex digits, colons and dots (plus an optional zone) that starts a token; it is an
// IPv6 address only if the parser says so and it has at least two colons and a hex digit.
const IPV6_CANDIDATE = /(?<![\w:.\]])[0-9A-Fa-f:][0-9A-Fa-f:.]*(?:%[0-9A-Za-z_-]+(?:\.[0-9A-Za-z_-]+)*)?/g;

function isAddress(address: string): boolean {
  return (address.match(/:/g)?.length ?? 0) >= 2 && /[0-9A-Fa-f]/.test(address) && isIPv6(address);
}

function maskIPv6(candidate: string, offset: number, text: string): string {
  const next = text[offset + candidate.length] ?? '';
  if (/\w/.test(next)) return candidate;
  const zoneAt = candidate.indexOf('%');
  if (zoneAt >= 0) return isAddress(candidate.slice(0, zoneAt)) ? MARKERS.ipv6 : candidate;
  // Dots at the end belong to the sentence, and a single colon to a message (`::1: refused`).
  let address = candidate.replace(/\.+$/, '');
  if (!isAddress(address) && /[^:]:$/.test(address)) address = address.slice(0, -1);
  return isAddress(address) ? MARKERS.ipv6 + candidate.slice(address.length) : candidate;
}

// Dotted quads with every part from 0 to 255 (no leading zeros). Not when glued to a word
// (`v1.2.3.4`, `build7.1.2.3`) or when more dotted numbers follow (`1.2.3.4.5`): those are
// versions. A bare four-part version such as `1.2.3.4` cannot be told from an address and is
// masked.
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\w.\\]])(?:${OCTET}\\.){3}${OCTET}(?![\\w]|\\.\\d)`, 'g');

// ---------------------------------------------------------------------------------------

function maskRound(text: string): string {
  let out = text.replace(URL_USERINFO, maskUserinfo);
  out = maskKeyedSecrets(out);
  out = out.replace(OPTION_SECRET, (_m, option: string, gap: string) => `${option}${gap}${MARKERS.secret}`);
  out = out.replace(COOKIE_HEADER, (_m, header: string) => `${header}${MARKERS.secret}`);
  out = out.replace(BARE_BEARER, (_m, scheme: string, gap: string) => `${scheme}${gap}${MARKERS.secret}`);
  out = maskShapes(out);
  out = out.replace(EMAIL, maskEmail);
  out = out.replace(IPV6_CANDIDATE, maskIPv6);
  out = out.replace(IPV4, MARKERS.ipv4);
  return out;
}

/**
 * The rules are applied again until the text stops changing. A marker can sit where a
 * word used to, which may expose a neighbour only on a second look; repeating makes the
 * result a fixed point, which is what makes masking idempotent. One round almost always
 * suffices; the bound only guards against a rule bug looping.
 */
const MAX_ROUNDS = 8;

function maskLineLocal(text: string): string {
  let current = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = maskRound(current);
    if (next === current) return current;
    current = next;
  }
  return current;
}

/** Masks identifiers and credential-like values in `text`. Safe to apply more than once. */
export function mask(text: string): string {
  return maskLineLocal(text.replace(PEM_BLOCK, MARKERS.privateKey));
}

/**
 * `mask`, with every occurrence of the given secrets (a configured API key, which may have no
 * recognisable shape) hidden first. Secrets shorter than four characters are not looked for.
 */
export function maskKnown(text: string, secrets: readonly (string | null | undefined)[]): string {
  return mask(hideLiterals(text, secrets));
}

/**
 * Only credentials: the given secrets and the shapes of known credentials, leaving addresses
 * and names as they are. For text an operator needs to act on, such as the error of their own
 * model server (its address stays readable; its key never shows).
 */
export function maskCredentials(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  return maskCredentialShapes(hideLiterals(text, secrets));
}

function hideLiterals(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (typeof secret === 'string' && secret.length >= 4) out = out.split(secret).join(MARKERS.secret);
  }
  return out;
}

/**
 * Masks a stream of text, line by line, with the same result as `mask` on the whole text.
 * Lines between a private-key header and its end line are held back (only the header is
 * kept, the key material is dropped at once), so memory stays bounded by the longest line.
 */
export class LineMasker {
  private pending = '';

  /** Feeds one line, including its line break if it has one; returns the text to emit now. */
  push(line: string): string {
    if (this.pending === '' && !PEM_BEGIN.test(line)) return maskLineLocal(line);
    this.pending += line;
    const open = openBlockStart(this.pending);
    if (open === null) {
      const out = mask(this.pending);
      this.pending = '';
      return out;
    }
    // Inside a key: keep only the text up to and including the header line's header.
    this.pending = `${this.pending.slice(0, open.headerEnd)}\n`;
    return '';
  }

  /** Ends the stream; returns whatever was held back, masked. */
  end(): string {
    const out = this.pending === '' ? '' : mask(this.pending);
    this.pending = '';
    return out;
  }
}

/** Where the unterminated private-key block of `text` starts, or null when every block ends. */
function openBlockStart(text: string): { headerEnd: number } | null {
  const block = new RegExp(`${PEM_BEGIN_SOURCE}(?<end>[\\s\\S]*?${PEM_END_SOURCE})?`, 'g');
  let open: { headerEnd: number } | null = null;
  for (const m of text.matchAll(block)) {
    open = m.groups?.end === undefined ? { headerEnd: m.index + m[0].length } : null;
    if (open) break;
  }
  return open;
}
