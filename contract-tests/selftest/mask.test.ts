// The masker and encoded tokens: a target that echoes a token base64- or hex-encoded, or every byte
// percent-encoded, must not get it printed. The encodings here are computed independently of io/mask.ts.
import { describe, expect, it } from 'vitest';
import { createMasker } from '../io/mask.ts';

const TOKEN = 'opk_Zm9vYmFyLWJhei1xdXV4LXNlY3JldC10b2tlbi0xMjM0NTY3';
const OTHER = 'a-session-secret-1234';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** Every form a hostile target might echo, each inside some text around it. */
function echoes(secret: string): Array<[string, string]> {
  return [
    ['base64', b64(secret)],
    ['base64 without padding', b64(secret).replace(/=+$/, '')],
    ['base64url', b64url(secret)],
    ['base64url with padding', b64(secret).replace(/\+/g, '-').replace(/\//g, '_')],
    ['base64 of the Authorization value', b64(`Bearer ${secret}`)],
    ['base64 of a JSON document holding it', b64(JSON.stringify({ token: secret }))],
    ['base64url of a text holding it at offset 2', b64url(`xy${secret}!`)],
    ['hex', Buffer.from(secret).toString('hex')],
    ['HEX', Buffer.from(secret).toString('hex').toUpperCase()],
    ['hex of the Authorization value', Buffer.from(`Bearer ${secret}`).toString('hex')],
    ['every byte percent-encoded', [...Buffer.from(secret)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')],
    ['URL-encoded', encodeURIComponent(secret)],
  ];
}

/** Whether any run of 12 characters of any encoding of the secret survives in the text. */
function leaks(text: string, secret: string): boolean {
  const whole = [secret, b64(secret), b64url(secret), Buffer.from(secret).toString('hex')];
  for (let offset = 1; offset < 3; offset++) {
    const shifted = Buffer.concat([Buffer.alloc(offset), Buffer.from(secret)]);
    whole.push(shifted.toString('base64').slice(4), shifted.toString('base64url').slice(4));
  }
  const lower = text.toLowerCase();
  return whole.some((form) => {
    for (let i = 0; i + 12 <= form.length - 3; i += 3) if (lower.includes(form.slice(i, i + 12).toLowerCase())) return true;
    return false;
  });
}

describe('the masker and encoded secrets', () => {
  const masker = createMasker([
    [TOKEN, 'CONTRACT_TOKEN'],
    [OTHER, 'SECRET'],
  ]);
  for (const secret of [TOKEN, OTHER]) {
    for (const [form, text] of echoes(secret)) {
      it(`masks ${secret === TOKEN ? 'a token' : 'another secret'} echoed as ${form}, in a body and in a header line`, () => {
        for (const around of [`{"echo":"${text}"}`, `x-echo: ${text}\r\n`, `bad token: ${text} | ${text}`]) {
          const masked = masker.mask(around);
          expect(leaks(masked, secret), masked).toBe(false);
          expect(masked).toContain(secret === TOKEN ? '$CONTRACT_TOKEN' : '$SECRET');
        }
      });
    }
  }

  it('leaves text that holds no secret as it was, base64 and hex of other values included', () => {
    const text = `ok ${b64('opk_somebody-elses-token-but-not-ours')} ${Buffer.from('hello world').toString('hex')} done`;
    expect(createMasker([[OTHER, 'SECRET']]).mask(text)).toBe(text);
  });

  it('masks a secret added later (from a request) in its encodings too', () => {
    const later = createMasker();
    later.addFromRequest([['Authorization', `Bearer ${TOKEN}`]], '/x');
    expect(leaks(later.mask(`echo ${b64(`Bearer ${TOKEN}`)} ${Buffer.from(TOKEN).toString('hex')}`), TOKEN)).toBe(false);
  });
});
