// Every state rule on every fixture it is given: each operation writes to each record of its fixture group (every
// story, not only its profile's), with each of the spec's named request examples, and every rule of model/state-rules.ts
// must hold on the answer (RULES.md#decision-3; RULES.md#state). Where the answer names the person the
// write is recorded against, it must be the caller (CONTRACT_PERSON_ID). On this package's mock each test starts
// from the seed.
import { beforeEach, describe, it } from 'vitest';
import { PERSONAS, RECORD_STORIES, WRITERS, personVariable, tokenVariable, type RecordStory } from '../io/env.ts';
import { decodeId } from '../model/id-model.ts';
import { ownNotifications } from '../model/caller.ts';
import { rightsOf } from '../model/personas.ts';
import { subscriptionRules, withMentions } from '../model/subscriptions.ts';
import { one, success } from '../model/expected.ts';
import { contract, resetTarget } from '../harness/harness.ts';
import { operationModels, PROFILES } from '../model/profiles.ts';
import { baseBody } from '../harness/requests.ts';
import { CALLER_FIELDS, STATE_RULES } from '../model/state-rules.ts';

for (const op of operationModels()) {
  const stories: ReadonlyArray<RecordStory> = RECORD_STORIES[op.group];
  const record = op.group.replace(/s$/, '');
  describe(op.operationId, () => {
    describe('state', () => {
      beforeEach(() => resetTarget());

      for (const story of stories) {
        for (const example of op.examples) {
          it(`On the ${story} ${record}, the request example "${example.name}" is 200 and every state rule holds (RULES.md#decision-3; RULES.md#state)`, async (ctx) => {
            const c = contract(ctx);
            const body = baseBody(op, c.record(op.group, story), example.name);
            await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => STATE_RULES[op.operationId](ex, body, story, c.target.person));
          });
        }
      }

      // Every other persona production lets write (env.ts WRITERS: a valid token with edit rights) writes too: what the
      // answer says depends on who writes (permissions, the person recorded), so each caller's answer is held to it.
      for (const writer of WRITERS.filter((w) => w !== 'full_access')) {
        it(`The ${writer} persona writes too: 200 on the ${PROFILES[op.operationId].target} ${record}, every state rule holds for it as the caller, and every record's permissions are its own (RULES.md#caller-fields; needs ${tokenVariable(writer)})`, async (ctx) => {
          const c = contract(ctx);
          if (c.target.tokens[writer] === undefined) return ctx.skip(`needs ${tokenVariable(writer)} (not set)`);
          const story = PROFILES[op.operationId].target;
          const body = baseBody(op, c.record(op.group, story));
          const caller = c.target.people[writer];
          // On this package's mock: the notifications the answer shows are the caller's own (GET /__mock/state; the
          // write notifies others, never its author, so the state before it names the caller's).
          const state = await c.mockState();
          const decoded = caller === undefined ? undefined : decodeId(caller);
          const own = (json: unknown) =>
            state !== undefined && caller !== undefined && decoded?.kind === 'uuid'
              ? ownNotifications(json, state, decoded.uuid, `the ${writer} person (${caller})`)
              : [];
          await c.check({ op, body, auth: { persona: writer } }, one(success), (ex) => [
            ...STATE_RULES[op.operationId](ex, body, story, caller),
            ...own(ex.json),
          ]);
        });
      }

      // A write that names people (RULES.md#subscriptions): subscriber_ids with the caller's own id twice and a person
      // without access, and a message that mentions a person who can see the record. On this package's mock the
      // state before and after shows the subscription rows and the notifications; elsewhere the write must be a 200.
      const listField = op.fields.find((f) => f.kind === 'id-list');
      const textField = op.fields.find((f) => f.kind === 'rich-text');
      const outsider = PERSONAS.find((p) => rightsOf(p).token === 'valid' && rightsOf(p).records === 'none');
      const viewer = PERSONAS.find((p) => rightsOf(p).token === 'valid' && rightsOf(p).records === 'view');
      if (listField && textField && outsider && viewer)
        for (const writer of WRITERS) {
          it(`The ${writer} persona's write names people: subscriber_ids with the caller twice and the ${outsider} person, a mention of the ${viewer} person; one subscription each, invited for the caller and the listed, mentioned for the mentioned; notified: who can see, never the author (RULES.md#subscriptions)`, async (ctx) => {
            const c = contract(ctx);
            c.token(writer);
            const story = PROFILES[op.operationId].target;
            const body = baseBody(op, c.record(op.group, story));
            const people = c.target.people;
            const [caller, outside, seen] = [people[writer], people[outsider], people[viewer]];
            if (caller === undefined || outside === undefined || seen === undefined)
              return ctx.skip(`needs the person ids of ${writer}, ${outsider} and ${viewer} (GET /__mock/fixtures names them)`);
            body[listField.name] = [caller, caller, outside];
            const message = body[textField.name];
            body[textField.name] = withMentions(typeof message === 'string' ? message : '{}', [{ id: seen, label: viewer }]);
            for (const field of op.fields) if (field.kind === 'boolean' && !field.required) body[field.name] = false;
            const before = await c.mockState();
            const exchange = await c.check({ op, body, auth: { persona: writer } }, one(success), (ex) => STATE_RULES[op.operationId](ex, body, story, caller));
            const after = await c.mockState();
            if (before === undefined || after === undefined) return;
            const uuid = (id: string): string => {
              const decoded = decodeId(id);
              return decoded.kind === 'uuid' ? decoded.uuid : id;
            };
            const names = new Map(Object.entries(people).flatMap(([persona, id]) => (id === undefined ? [] : [[uuid(id), `the ${persona} person`] as const])));
            const canSee = (person: string): boolean => {
              const persona = PERSONAS.find((p) => people[p] !== undefined && uuid(people[p] ?? '') === person);
              return persona === undefined || (rightsOf(persona).records !== 'none' && rightsOf(persona).token !== 'refused');
            };
            const sent = { caller: uuid(caller), listed: [caller, caller, outside].map(uuid), mentioned: [uuid(seen)] };
            c.judge(
              exchange,
              subscriptionRules(before, after, sent, canSee, (person) => names.get(person) ?? person),
            );
          });
        }

      const fields = CALLER_FIELDS[op.operationId];
      if (fields.length > 0) {
        it(`The write is recorded against the caller: ${fields.join(' and ')} name the person of the token, where the answer names one (RULES.md#state-close; needs ${personVariable('full_access')})`, async (ctx) => {
          const c = contract(ctx);
          const person = c.target.person;
          if (person === undefined) return ctx.skip(`needs ${personVariable('full_access')} (not set)`);
          const body = baseBody(op, c.record(op.group, PROFILES[op.operationId].target));
          await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) =>
            STATE_RULES[op.operationId](ex, body, PROFILES[op.operationId].target, person),
          );
        });
      }
    });
  });
}
