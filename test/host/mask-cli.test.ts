import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { mask } from '../../src/capabilities/host/masking.ts';
import { runMask } from '../../src/cli/commands/mask.ts';
import { programArgs } from '../support/programs.ts';

async function maskThrough(chunks: (string | Buffer)[]): Promise<string> {
  const output = new PassThrough();
  const collected: Buffer[] = [];
  output.on('data', (chunk: Buffer) => collected.push(chunk));
  await runMask(Readable.from(chunks), output);
  output.end();
  return Buffer.concat(collected).toString('utf8');
}

const KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+Dq5X\nq3H8aMaRy2y0oZ3mQ1o6b1Qy8H4vW0uF1Xz8b9u1Y3e5\n-----END RSA PRIVATE KEY-----';

describe('runMask', () => {
  it('masks line by line and keeps line breaks and a missing final newline', async () => {
    const input = 'login bob@example.com\r\nfrom 10.0.0.1\n\nlast password=x';
    assert.equal(await maskThrough([input]), 'login [email]\r\nfrom [ipv4]\n\nlast password=[secret]');
  });

  it('masks a private key that spans lines and chunks', async () => {
    const text = `before\nkey: ${KEY} after\nend\n`;
    const chunks = text.match(/[\s\S]{1,7}/g)!;
    assert.equal(await maskThrough(chunks), 'before\nkey: [private-key] after\nend\n');
  });

  it('masks an unterminated key to the end of input', async () => {
    assert.equal(await maskThrough(['ok\n-----BEGIN PRIVATE KEY-----\nMIIEvQ\n', 'MIIEvQ\n']), 'ok\n[private-key]');
  });

  it('keeps multi-byte characters split across chunks intact', async () => {
    const bytes = Buffer.from('café 😀 user@example.com\n', 'utf8');
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    assert.equal(await maskThrough(chunks), 'café 😀 [email]\n');
  });

  it('agrees with mask() on the whole text', async () => {
    const text = `a 192.168.0.1\n${KEY}\nb token=abc\n-----BEGIN EC PRIVATE KEY-----\nx\n-----END EC PRIVATE KEY----- c x@y.io\n`;
    assert.equal(await maskThrough(text.match(/[\s\S]{1,5}/g)!), mask(text));
  });
});

describe('praxis mask as a process', () => {
  it('reads standard input and writes masked standard output', async () => {
    const script = new URL('./support/mask-program.ts', import.meta.url);
    const child = spawn(process.execPath, [...programArgs(script), 'mask'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdin.end(`Dec 02 sshd[1]: Accepted password for root from 203.0.113.9 port 22\nAuthorization: Bearer abc.def\n${KEY}\nbye\n`);
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(Buffer.concat(err).toString(), '');
    assert.equal(status, 0);
    assert.equal(Buffer.concat(out).toString(), 'Dec 02 sshd[1]: Accepted password for root from [ipv4] port 22\nAuthorization: Bearer [secret]\n[private-key]\nbye\n');
  });
});
