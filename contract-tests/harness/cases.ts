// Small helpers the table-driven test files share: which record a test writes to, and which id to use where the
// record does not matter (checks that answer before the lookup).
import { randomBytes } from 'node:crypto';
import type { Auth, Contract } from './harness.ts';
import { PROFILES, type OperationModel } from '../model/profiles.ts';
import { baseBody } from './requests.ts';
import type { JsonObject } from '../../spec/lib/openapi.ts';

/** The id of the record the operation may change (its profile's fixture story), or the test is skipped. */
export function targetId(c: Contract, op: OperationModel): string {
  return c.record(op.group, PROFILES[op.operationId].target);
}

/** That id when given; otherwise the spec example's own id (well-formed, so the answer comes before any lookup). */
function anyId(c: Contract, op: OperationModel): string {
  const given: Partial<Record<string, string>> = c.target.records[op.group];
  const id = given[PROFILES[op.operationId].target];
  if (id !== undefined) return id;
  const example = op.examples[0]?.value[op.targetField];
  if (typeof example !== 'string') throw new Error(`${op.operationId} has no request example with a ${op.targetField}`);
  return example;
}

/** A valid body whose id only has to be well-formed. */
export function anyBody(c: Contract, op: OperationModel): JsonObject {
  return baseBody(op, anyId(c, op));
}

/** The full-access token when one was given, else no token: for checks that answer before the token is read. */
export function tokenIfAny(c: Contract): Auth {
  return c.target.tokens.full_access === undefined ? undefined : { persona: 'full_access' };
}

/** A token in production's format (`opk_` + 43 URL-safe base64 characters) that no server has issued. */
export function unknownToken(): string {
  return `opk_${randomBytes(32).toString('base64url')}`;
}
