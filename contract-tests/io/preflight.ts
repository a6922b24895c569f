// What `npm run contract` finds out before any test runs, so that the first line of a run says what is wrong instead
// of three hundred failures saying it one by one: a URL where nothing listens (exit 2, naming the fix), a URL that is
// not this API (exit 2), and a token the server refuses (the run goes on; the first line and the summary name the
// variable). Sends only requests a correct server answers without changing anything: `{}` to each operation.
import { createClient, RequestTimeout, TransportError, type ApiRequest, type ApiResponse } from './client.ts';
import { mediaTypeOf } from '../../spec/lib/conformance.ts';
import { messages, texts } from '../../spec/lib/messages.ts';
import { PERSONAS, tokenVariable, type ContractConfig, type Persona } from './env.ts';
import { rightsOf } from '../model/personas.ts';
import { operationModels } from '../model/profiles.ts';
import { MOCK_SESSION_HEADER, resolveTarget, type ResolvedTarget } from './target.ts';

export type Preflight = { fatal: string } | { target: ResolvedTarget };

/** The fix for each way of not reaching the URL at all (a wrong URL, not a broken server: exit 2). */
function unreachable(config: ContractConfig, error: TransportError): string | undefined {
  const url = new URL(config.baseUrl);
  switch (error.code) {
    case 'ECONNREFUSED':
      return `CONTRACT_BASE_URL: nothing is listening on ${url.host} (connection refused): start the server there (this package's mock: npx service-external-api mock, which listens on http://127.0.0.1:4010) or point CONTRACT_BASE_URL at one that runs`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `CONTRACT_BASE_URL: the host name ${url.hostname} does not resolve (${error.code}): check the spelling, or your VPN/DNS`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `CONTRACT_BASE_URL: no route to ${url.hostname} (${error.code}): check the network (VPN?) or the host`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'CERT_HAS_EXPIRED':
      return `CONTRACT_BASE_URL: the TLS certificate of ${url.host} is not trusted (${error.code}): use the host name the certificate names, or give Node the CA with NODE_EXTRA_CA_CERTS=<file>`;
    default:
      return undefined;
  }
}

/**
 * How a persona's token is answered `{}` (before any lookup), from the persona table: what it must get, and what 401
 * means; a token the service refuses anyway (a suspended person's) is left out.
 */
function expectedForEmptyBody(): Array<[Persona, string]> {
  return PERSONAS.flatMap((persona): Array<[Persona, string]> => {
    const { token } = rightsOf(persona);
    if (token === 'refused') return [];
    return [[persona, token === 'read-only' ? `403 ${JSON.stringify(texts.readOnly)}` : `400 ${JSON.stringify(messages.missingFields(['…']))}`]];
  });
}

/** Why these answers say the URL is not this API, if they do. */
function notTheApi(config: ContractConfig, answers: ReadonlyArray<{ request: ApiRequest; response: ApiResponse }>): string | undefined {
  if (answers.length === 0) return undefined;
  const where = answers.map((a) => `${a.request.method} ${a.request.path}`).join(' and ');
  if (answers.every((a) => mediaTypeOf(a.response.headers['content-type']) === 'text/html')) {
    const statuses = [...new Set(answers.map((a) => a.response.status))].join('/');
    return `CONTRACT_BASE_URL: ${config.baseUrl} does not look like this API: it answered ${where} with an HTML page (${statuses}), where the API answers 401 ${JSON.stringify(texts.unauthorized)}; point it at the API's origin (not the web app or a login page), or wait for the deployment behind it`;
  }
  if (answers.every((a) => a.response.status === 404)) {
    return `CONTRACT_BASE_URL: ${config.baseUrl} does not look like this API: it answered 404 to ${where}; give the origin the spec's paths are appended to (the suite adds /api/external/v1/…), and check that the deployment has these operations`;
  }
  return undefined;
}

/** Resolves the target (target.ts) and checks the URL and the tokens first. */
export async function preflight(config: ContractConfig): Promise<Preflight> {
  const client = createClient({ baseUrl: config.baseUrl, timeoutMs: config.timeoutMs });
  const answers: Array<{ request: ApiRequest; response: ApiResponse }> = [];
  for (const op of operationModels()) {
    const request: ApiRequest = { method: op.method, path: op.path, headers: { 'content-type': 'application/json' }, body: '{}' };
    try {
      answers.push({ request, response: await client.send(request) });
    } catch (error) {
      if (error instanceof TransportError) {
        const fatal = unreachable(config, error);
        if (fatal) return { fatal };
      }
      // A timeout or a reset is the server's fault, not the URL's: the tests report it.
      if (error instanceof RequestTimeout || error instanceof TransportError) return { target: await resolveTarget(config) };
      throw error;
    }
  }
  const wrong = notTheApi(config, answers);
  if (wrong) return { fatal: wrong };

  const target = await resolveTarget(config);
  if (target.unreachable) return { target };
  const first = operationModels()[0];
  if (!first) return { target };
  for (const [persona, expected] of expectedForEmptyBody()) {
    const token = target.tokens[persona];
    if (token === undefined) continue;
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    if (target.mockSession) headers[MOCK_SESSION_HEADER] = target.mockSession;
    let response: ApiResponse;
    try {
      response = await client.send({ method: first.method, path: first.path, headers, body: '{}' });
    } catch {
      continue;
    }
    if (response.status !== 401) continue;
    const variable = tokenVariable(persona);
    target.refused.push(variable);
    const from = target.sources[variable] === 'mock' ? ' (read from GET /__mock/fixtures)' : '';
    target.notes.push(
      `${variable}${from} is refused: ${config.baseUrl} answers 401 to it (POST ${first.path} with {}, where a valid token gets ${expected}); the tests that need it will fail until it is a current API token of this server`,
    );
  }
  return { target };
}
