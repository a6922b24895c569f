// Content types, Accept and JSON decoding, all checked before the token (RULES.md#accept,
// "Content-Type and the request body", error table #1, #4, #5).
import { describe, it } from 'vitest';
import { anyBody, targetId } from '../harness/cases.ts';
import { specText, texts } from '../../spec/lib/messages.ts';
import { answers, one, plain, success } from '../model/expected.ts';
import { contract } from '../harness/harness.ts';
import { operationModels, PROFILES } from '../model/profiles.ts';
import { baseBody, withoutField } from '../harness/requests.ts';
import { STATE_RULES } from '../model/state-rules.ts';

for (const op of operationModels()) {
  const a = answers(op);
  describe(op.operationId, () => {
    describe('transport', () => {
      it(`A Content-Type that is neither JSON nor a form is ${a.unsupportedMediaType.label}, before the token (error table #5)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, raw: JSON.stringify(anyBody(c, op)), contentType: 'text/plain' }, one(a.unsupportedMediaType));
      });

      it('application/*+json is read as JSON: a valid body without a token gets 401, not 415 (RULES.md#content-type)', async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: anyBody(c, op), contentType: 'application/vnd.api+json' }, one(a.unauthorized));
      });

      it(`An Accept header that allows no JSON is ${a.notAcceptable.label} (error table #4)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: anyBody(c, op), accept: 'text/html' }, one(a.notAcceptable));
      });

      it(`Invalid JSON is ${a.invalidJsonHtml.label} (error table #1)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, raw: '{"truncated": ' }, one(a.invalidJsonHtml));
      });

      it(`Invalid JSON is ${a.invalidJsonJson.label} when Accept asks for JSON only (error table #1)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, raw: '{"truncated": ', accept: 'application/json' }, one(a.invalidJsonJson));
      });

      it(`Without a Content-Type the body is ignored: a valid token gets ${a.missingFields(op.required).label}, every field (RULES.md#content-type)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, raw: JSON.stringify(anyBody(c, op)), contentType: null, auth: { persona: 'full_access' } }, one(a.missingFields(op.required)));
      });

      it('A trailing slash and doubled slashes name the same operation: a valid body without a token gets 401 (RULES.md#method-rules)', async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: anyBody(c, op), path: `${op.path.replace(/\/([^/]+)$/, '//$1')}/` }, one(a.unauthorized));
      });

      it(`Inputs may come from the query string: ${op.targetField} given there is used (RULES.md#content-type)`, async (ctx) => {
        const c = contract(ctx);
        const id = targetId(c, op);
        const body = baseBody(op, id);
        await c.check(
          { op, body: withoutField(body, op.targetField), path: `${op.path}?${op.targetField}=${encodeURIComponent(id)}`, auth: { persona: 'full_access' } },
          one(success),
          (ex) => STATE_RULES[op.operationId](ex, body, PROFILES[op.operationId].target, c.target.person),
        );
      });

      const methodNotAllowed = plain(405, specText('MethodNotAllowed', 'text/plain'));
      it(`Another method (PUT) is ${methodNotAllowed.label}, before the token (error table #6)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, method: 'PUT', body: anyBody(c, op), outsideSpec: true }, one(methodNotAllowed));
      });

      const queryNotFound = plain(404, texts.queryNotFound);
      it(`GET on the operation is ${queryNotFound.label}, before the token (error table #10)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, method: 'GET', outsideSpec: true }, one(queryNotFound));
      });

      const mutationNotFound = plain(404, texts.mutationNotFound);
      it(`Operation names are case-sensitive: ${op.path.replace(/\/[^/]+\/[^/]+$/, '/…')} with capitals is ${mutationNotFound.label} (error table #9)`, async (ctx) => {
        const c = contract(ctx);
        const upper = op.path.replace(
          /\/([^/]+)\/([^/]+)$/,
          (_m, ns: string, name: string) => `/${ns.charAt(0).toUpperCase()}${ns.slice(1)}/${name.charAt(0).toUpperCase()}${name.slice(1)}`,
        );
        await c.check({ op, path: upper, body: anyBody(c, op), outsideSpec: true }, one(mutationNotFound));
      });
    });
  });
}
